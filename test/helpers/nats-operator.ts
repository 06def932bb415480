import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  createAccount,
  createOperator,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  type KeyPair,
} from '@nats-io/jwt';

/**
 * A NATS operator of the test's own (decentralised JWT auth, as operators deploy it with `nsc`): one system
 * account, one account with JetStream enabled, and users of that account whose credentials files it writes.
 * Keys and JWTs come from NATS's own library, so the server checks real signatures.
 */
export interface NatsOperator {
  /** The server configuration lines that trust this operator and preload its accounts. */
  serverConfig: string;
  /** Writes `<dir>/<name>.creds` for a new user of the account that may publish only to `publish`. */
  user(name: string, publish: string[]): Promise<string>;
}

const UNLIMITED = { subs: -1, data: -1, payload: -1 };

export async function natsOperator(dir: string): Promise<NatsOperator> {
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const operatorJwt = await encodeOperator('svc-test', operator, { system_account: system.getPublicKey() });
  const systemJwt = await encodeAccount('SYS', system, {}, { signer: operator });
  const accountJwt = await encodeAccount(
    'AUDIT',
    account,
    {
      limits: {
        ...UNLIMITED,
        conn: -1,
        imports: -1,
        exports: -1,
        leaf: -1,
        wildcards: true,
        mem_storage: -1,
        disk_storage: -1,
        streams: -1,
        consumer: -1,
      },
    },
    { signer: operator },
  );
  const preload = (kp: KeyPair, jwt: string) => `  ${kp.getPublicKey()}: ${jwt}`;
  return {
    serverConfig: [
      `operator: ${operatorJwt}`,
      `system_account: ${system.getPublicKey()}`,
      'resolver: MEMORY',
      'resolver_preload: {',
      preload(system, systemJwt),
      preload(account, accountJwt),
      '}',
    ].join('\n'),
    async user(name, publish) {
      const kp = createUser();
      const jwt = await encodeUser(name, kp, account, {
        ...UNLIMITED,
        pub: { allow: publish },
        sub: { allow: ['_INBOX.>'] },
      });
      const file = path.join(dir, `${name}.creds`);
      writeFileSync(file, fmtCreds(jwt, kp), { mode: 0o600 });
      return file;
    },
  };
}
