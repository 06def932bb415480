import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

// The boundaries the code base promises, checked over the source files themselves: plugins and examples
// reach the kernel only through its public API (kernel/index.ts), the kernel never imports a plugin, the
// ports (the kernel's contracts) sit in no import circle, and comments say what the code does instead of
// pointing at planning documents that are not part of the repository.

const ROOT = path.resolve(import.meta.dirname, '../..');
const KERNEL = path.join(ROOT, 'kernel');
const KERNEL_INDEX = path.join(KERNEL, 'index.ts');

function sourceFiles(dir: string, ext = '.ts'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext) && !e.parentPath.includes('node_modules'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every module specifier a TypeScript file imports or re-exports, static or dynamic. */
export function importedSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*(['"])(.+?)\1/gm)) found.push(m[2]!);
  for (const m of text.matchAll(/^\s*import\s*(['"])(.+?)\1/gm)) found.push(m[2]!);
  for (const m of text.matchAll(/\bimport\(\s*(['"])(.+?)\1\s*\)/g)) found.push(m[2]!);
  return found;
}

/** The file a relative specifier names, or undefined for a package. */
function resolved(from: string, specifier: string): string | undefined {
  return specifier.startsWith('.') ? path.resolve(path.dirname(from), specifier) : undefined;
}

/** What in `file` reaches into the kernel other than through kernel/index.ts. */
export function deepKernelImports(file: string, text: string): string[] {
  return importedSpecifiers(text).filter((s) => {
    if (/^svc-kms\/kernel\//.test(s)) return true;
    const target = resolved(file, s);
    return target?.startsWith(KERNEL + path.sep) && target !== KERNEL_INDEX;
  });
}

t.test('the guard sees a deep kernel import in every form', async (t) => {
  const file = path.join(ROOT, 'plugins/some/thing.ts');
  t.same(
    deepKernelImports(
      file,
      "import { x } from '../../kernel/index.ts';\nimport type { Y } from '../../kernel/index.ts';",
    ),
    [],
  );
  t.same(deepKernelImports(file, "import {\n  a,\n  type B,\n} from '../../kernel/ports/journal.ts';"), [
    '../../kernel/ports/journal.ts',
  ]);
  t.same(deepKernelImports(file, "export { a } from '../../kernel/boot.ts';"), ['../../kernel/boot.ts']);
  t.same(deepKernelImports(file, "const m = await import('../../kernel/errors.ts');"), ['../../kernel/errors.ts']);
  t.same(deepKernelImports(file, "import { a } from 'svc-kms/kernel/errors';"), ['svc-kms/kernel/errors']);
  t.same(deepKernelImports(file, 'import "../../kernel/boot.ts";\nimport { b } from "../../kernel/errors.ts";'), [
    '../../kernel/errors.ts',
    '../../kernel/boot.ts',
  ]);
});

t.test('plugins, examples and contracts import the kernel only through kernel/index.ts', async (t) => {
  const offenders: string[] = [];
  for (const file of [...sourceFiles('plugins'), ...sourceFiles('examples'), ...sourceFiles('contracts')]) {
    for (const s of deepKernelImports(file, readFileSync(file, 'utf8')))
      offenders.push(`${path.relative(ROOT, file)}: ${s}`);
  }
  t.same(offenders, [], 'import what a plugin needs from kernel/index.ts (export it there if it is missing)');
});

t.test('the kernel never imports a plugin', async (t) => {
  const plugins = path.join(ROOT, 'plugins') + path.sep;
  const offenders: string[] = [];
  for (const file of sourceFiles('kernel')) {
    for (const s of importedSpecifiers(readFileSync(file, 'utf8'))) {
      if (resolved(file, s)?.startsWith(plugins)) offenders.push(`${path.relative(ROOT, file)}: ${s}`);
    }
  }
  t.same(offenders, []);
});

/** Every import in the files under `from` that lands under one of `targets` (top-level folders). */
function importsInto(from: string[], targets: string[]): string[] {
  const into = targets.map((d) => path.join(ROOT, d) + path.sep);
  return from.flatMap((dir) =>
    sourceFiles(dir).flatMap((file) =>
      importedSpecifiers(readFileSync(file, 'utf8'))
        .filter((s) => into.some((d) => resolved(file, s)?.startsWith(d)))
        .map((s) => `${path.relative(ROOT, file)}: ${s}`),
    ),
  );
}

t.test(
  'a plugin gets its settings from the kernel: nothing under plugins/ or examples/ imports config/ or app/',
  async (t) => {
    t.same(
      importsInto(['plugins', 'examples', 'contracts'], ['config', 'app']),
      [],
      'declare settings in the plugin (settings) and read them in configure',
    );
  },
);

t.test(
  'the arrows point one way: kernel imports none of config/, app/, schemas/; config/ imports no app/',
  async (t) => {
    t.same(
      importsInto(['kernel'], ['config', 'app', 'schemas']),
      [],
      'the wire schemas the kernel needs (error body, audit event) are its own',
    );
    t.same(importsInto(['config'], ['app']), []);
  },
);

t.test('the plugin definition API has no any', async (t) => {
  const files = ['kernel/define-plugin.ts', ...sourceFiles('kernel/settings').map((f) => path.relative(ROOT, f))];
  const offenders = files.flatMap((file) =>
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        /(:\s*any\b|<any\b|\bany\[\]|,\s*any\b|as any\b)/.test(line.replace(/\/\/.*$|^\s*\*.*$/, ''))
          ? [`${file}:${i + 1}: ${line.trim()}`]
          : [],
      ),
  );
  t.same(offenders, [], 'type it, or use unknown');
});

t.test('no kernel port is part of an import circle', async (t) => {
  const graph = new Map<string, string[]>();
  const edges = (file: string): string[] => {
    let out = graph.get(file);
    if (!out) {
      const text = readFileSync(file, 'utf8');
      out = importedSpecifiers(text).flatMap((s) => {
        const target = resolved(file, s);
        return target?.startsWith(KERNEL + path.sep) ? [target] : [];
      });
      graph.set(file, out);
    }
    return out;
  };
  const circles: string[] = [];
  for (const port of sourceFiles('kernel/ports')) {
    // Depth-first from the port's imports; reaching the port again closes a circle.
    const seen = new Set<string>();
    const walk = (file: string, trail: string[]): void => {
      for (const next of edges(file)) {
        if (next === port) circles.push([...trail, next].map((f) => path.relative(ROOT, f)).join(' -> '));
        else if (!seen.has(next)) {
          seen.add(next);
          walk(next, [...trail, next]);
        }
      }
    };
    walk(port, [port]);
  }
  t.same(circles, [], 'a port declares types; the implementations import the port, never the other way round');
});

t.test('comments and docs state behaviour, not sections of planning documents', async (t) => {
  const cites = /\bSPEC\b|\bDECISIONS\b/;
  const files = [
    ...['kernel', 'plugins', 'app', 'config', 'clients', 'schemas', 'contracts', 'examples'].flatMap((d) =>
      sourceFiles(d),
    ),
    ...sourceFiles('docs', '.md'),
    path.join(ROOT, 'README.md'),
  ];
  const offenders: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (cites.test(line)) offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  t.same(offenders, [], 'SPEC.md and DECISIONS.md are not in the repository: say the rule itself');
});
