import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import knexFactory, { type Knex } from 'knex';
import path from 'node:path';
import { Client } from 'undici';
import { spawnService, type ServiceProcess } from './process.ts';
import { tempDir } from './service.ts';
import type { TestDatabase } from './databases.ts';
import { until } from './until.ts';

export interface WorkerNode {
  proc: ServiceProcess;
  url: string;
  /**
   * The worker (node id suffix, w1 or w2 ...) that served the request with this X-Request-Id, read from the audit
   * trail.
   */
  servedBy(requestId: string): Promise<string>;
  /** Pids of the workers by name, from their "worker listening" lines (a replacement's line comes later and wins). */
  workerPids(): Map<string, number>;
  close(): Promise<void>;
}

/** A node of several workers on PostgreSQL (db given) or on SQLite files in a fresh folder. */
export async function startWorkerNode(
  workers: number,
  db: TestDatabase | undefined,
  env: Record<string, string> = {},
): Promise<WorkerNode> {
  const dir = tempDir('svc-kms-workers-');
  const storage = db
    ? db.env
    : {
        SVC_JOURNAL_KIND: 'rdb-embedded',
        SVC_AUDIT_KIND: 'rdb-embedded',
        SVC_RDB_EMBEDDED_JDBC_URL: `jdbc:sqlite:${path.join(dir, 'journal.db')}`,
        SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
      };
  const proc = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_WORKERS: String(workers),
    SVC_REVOCATION_KIND: 'none',
    SVC_DATA_DIR: dir,
    SVC_NODE_ID: 'kms',
    // Test connections stay with the worker that accepted them.
    SVC_HTTP_KEEP_ALIVE_TIMEOUT_MS: '120000',
    ...storage,
    ...env,
  });
  const port = await proc.listening;
  let knex: Knex | undefined;
  let sqlite: Database | undefined;
  const nodeOf = async (requestId: string): Promise<string | undefined> => {
    if (db) {
      const u = new URL(db.url.replace(/^jdbc:postgresql:/, 'db:'));
      knex ??= knexFactory({
        client: 'pg',
        connection: {
          host: u.hostname,
          port: Number(u.port),
          database: u.pathname.slice(1),
          user: db.user,
          password: db.password,
        },
      });
      return (await knex('svc_audit').where({ correlation_id: requestId }).first('node'))?.node;
    }
    sqlite ??= new Database(path.join(dir, 'audit.db'), { readonly: true, fileMustExist: true });
    return (
      sqlite.prepare('select node from svc_audit where correlation_id = ?').get(requestId) as
        | { node?: string }
        | undefined
    )?.node;
  };
  return {
    proc,
    url: `http://127.0.0.1:${port}`,
    async servedBy(requestId) {
      let node: string | undefined;
      await until(async () => (node = await nodeOf(requestId)) !== undefined, `the audit row of request ${requestId}`);
      return node!.replace(/^kms-/, '');
    },
    workerPids() {
      const pids = new Map<string, number>();
      for (const line of proc.stderr().split('\n')) {
        if (!line.includes('"worker listening"')) continue;
        const entry = JSON.parse(line) as { msg: string; worker: string; pid: number };
        if (entry.msg === 'worker listening') pids.set(entry.worker, entry.pid);
      }
      return pids;
    },
    async close() {
      if (proc.child.exitCode === null) {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
      await knex?.destroy();
      sqlite?.close();
    },
  };
}

/** One kept-alive connection to the node: every request on it is served by the worker that accepted it. */
export class Connection {
  private readonly client: Client;
  private n = 0;

  constructor(
    url: string,
    private readonly tag: string,
    private readonly user = 'ops',
    answerWithinMs = 20_000,
  ) {
    this.client = new Client(url, { pipelining: 1, keepAliveTimeout: 120_000, headersTimeout: answerWithinMs });
  }

  /** Sends a request with a fresh X-Request-Id; answers its status, body and that id. */
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; requestId: string }> {
    const requestId = `${this.tag}-${++this.n}-${Math.random().toString(36).slice(2)}`;
    const res = await this.client.request({
      method: method as 'GET',
      path,
      headers: {
        'x-svc-user': this.user,
        'x-request-id': requestId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      body: text && String(res.headers['content-type']).includes('json') ? JSON.parse(text) : text,
      requestId,
    };
  }

  /** Closes the connection; closing it again does nothing. */
  async close(): Promise<void> {
    if (!this.client.closed && !this.client.destroyed) await this.client.close();
  }
}

/**
 * One connection per worker: opens connections until each of `workers` workers holds one, telling them
 * apart by the audit row of a first request on each (the node that wrote it).
 */
export async function connectionPerWorker(node: WorkerNode, workers: number): Promise<Map<string, Connection>> {
  const found = new Map<string, Connection>();
  for (let i = 0; i < 8 * workers && found.size < workers; i++) {
    const conn = new Connection(node.url, `conn${i}`);
    const probe = await conn.call('POST', '/v1/keys', { spec: { name: `probe-${i}`, algorithm: 'AES' } });
    if (probe.status !== 201) throw new Error(`create answered ${probe.status}: ${JSON.stringify(probe.body)}`);
    const worker = await node.servedBy(probe.requestId);
    if (found.has(worker)) await conn.close();
    else found.set(worker, conn);
  }
  if (found.size < workers) throw new Error(`only workers ${[...found.keys()].join(', ')} accepted a connection`);
  return found;
}
