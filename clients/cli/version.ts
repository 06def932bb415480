import pkg from '../../package.json' with { type: 'json' };

/** The package version, read at build time (the bundle inlines it). */
export const CLI_VERSION: string = pkg.version;
