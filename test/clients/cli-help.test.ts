import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { tempDir } from '../helpers/service.ts';

// Help and version need no server: their own file, so the many short runs of svc do not eat into the
// time limit of the files that drive a service.
const env = cliEnv(tempDir('svc-cli-help-'));
const json = svcJson(env);

t.test('svc --help lists every command, each with an example in its own help', async (t) => {
  const r = await svc(['--help'], env);
  t.equal(r.code, 0);
  const leaves = [
    'version',
    'login',
    'keys create',
    'keys get',
    'keys list',
    'keys activate',
    'keys sign',
    'keys verify',
    'keys encrypt',
    'keys decrypt',
    'keys wrap',
    'keys unwrap',
    'keys rotate',
    'keys compromise',
    'keys destroy',
    'keys cancel-destroy',
    'keys trim',
    'keys export',
    'keys import',
    'keys data-key',
    'keys reencrypt',
    'keys revoke',
    'keys public-key',
    'keys tag set',
    'keys tag remove',
    'keys disable',
    'keys enable',
    'keys alias create',
    'keys alias move',
    'keys alias delete',
    'keys alias list',
    'agent issue',
    'agent list',
    'agent revoke',
    'tokens revoke',
    'audit tail',
    'audit verify',
    'advisor scan',
    'advisor explain',
    'policy get',
    'policy put',
    'access-keys create',
    'access-keys list',
    'access-keys delete',
  ];
  for (const c of leaves) t.match(r.out, new RegExp(`svc ${c}\\s`), `lists ${c}`);
  // A few at a time: one run of svc costs about a second on a loaded machine, and there are some fifty.
  const groups = [
    'keys',
    'keys tag',
    'keys alias',
    'agent',
    'agents',
    'tokens',
    'audit',
    'advisor',
    'policy',
    'access-keys',
  ];
  const all = [...leaves, ...groups];
  for (let at = 0; at < all.length; at += 4) {
    const batch = all.slice(at, at + 4);
    const helps = await Promise.all(batch.map((c) => svc([...c.split(' '), '--help'], env)));
    for (const [i, help] of helps.entries()) {
      t.equal(help.code, 0);
      t.match(help.out, /Examples?:\n\s+\$ .*svc /, `${batch[i]} --help has an example`);
    }
  }
  const version = await json(['version']);
  t.equal(
    version.svc,
    JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')).version,
  );
});
