export declare const BUILD_STAMP: string;
export declare function buildFreshness(root: string): { built: boolean; changed?: string };
