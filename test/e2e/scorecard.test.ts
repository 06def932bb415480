import { spawnSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');

t.test(
  'the detection scorecard meets its goals: boundary attacks stopped ' +
    'within 1 s, no legitimate key down, no false positive',
  async (t) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scorecard/run.ts'], {
      cwd: root,
      env: { ...process.env, SCORECARD_CHECK: '1' },
      encoding: 'utf8',
      timeout: 300_000,
    });
    t.equal(run.status, 0, run.stderr || 'goals met');
    t.match(
      run.stdout,
      /False positives on benign traffic after the first \(learning\) day: 0 auto-response rows and 0 refused requests/,
    );
    for (const attack of [
      'powerless agent hammering a victim key',
      'scope probing across many keys',
      'impersonated svc-system',
      "a revoked parent's agent",
    ]) {
      t.match(run.stdout, new RegExp(`\\| ${attack}[^|]* \\| yes \\| 0\\.\\d\\d s \\|`), attack);
    }
    t.match(run.stdout, /Legitimate keys after these attacks: all Active, and the bystander still signs/);
  },
);
