import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import {
  decodeTtlv,
  encodeTtlv,
  enumeration,
  Framer,
  integer,
  K,
  structure,
  type TtlvItem,
} from '../../plugins/doors/kmip/ttlv/index.ts';
import { startTestService, type TestService } from './service.ts';
import { freePort } from './test-server.ts';
import { issueClientCertificate, makeTestPki, type TestPki } from './tls-certs.ts';

/** Debian's python3 (the pyenv python3 first on PATH does not see python3-pykmip). */
export const SYSTEM_PYTHON = '/usr/bin/python3';

/** Whether PyKMIP can be imported; installs python3-pykmip from Debian when missing (as CI runs, root). */
export async function pykmipAvailable(): Promise<boolean> {
  const probe = () =>
    new Promise<boolean>((resolve) =>
      execFile(SYSTEM_PYTHON, ['-c', 'import kmip.pie.client'], (err) => resolve(!err)),
    );
  if (existsSync(SYSTEM_PYTHON) && (await probe())) return true;
  await new Promise<void>((resolve) =>
    execFile(
      'bash',
      ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pykmip'],
      () => resolve(),
    ),
  );
  return probe();
}

export interface KmipService {
  svc: TestService;
  pki: TestPki;
  port: number;
  /** A client certificate for the subject given (`/CN=billing`), issued by the client CA the door trusts. */
  identity(name: string, subject: string): KmipIdentity;
  stop(): Promise<void>;
}

export interface KmipIdentity {
  certFile: string;
  keyFile: string;
}

/** The real service with the KMIP door on a free port, mutual TLS from a throwaway PKI. */
export async function startKmipService(env: Record<string, string> = {}): Promise<KmipService> {
  const pki = makeTestPki();
  const port = await freePort();
  const svc = await startTestService({
    SVC_KMIP_ENABLED: 'true',
    SVC_KMIP_PORT: String(port),
    SVC_KMIP_TLS_CERT_FILE: pki.serverCertFile,
    SVC_KMIP_TLS_KEY_FILE: pki.serverKeyFile,
    SVC_KMIP_TLS_CLIENT_CA_FILE: pki.caFile,
    ...env,
  });
  return {
    svc,
    pki,
    port,
    identity: (name, subject) => issueClientCertificate(pki, name, subject),
    stop: () => svc.stop(),
  };
}

export type PyKmipResult = { ok: any } | { error: { status: string; reason: string; message: string } };

/** Runs steps with PyKMIP's client (test/kmip/pykmip_steps.py) as `identity`; one answer per step. */
export function pykmip(
  kmip: KmipService,
  identity: KmipIdentity,
  steps: object[],
  version = '1.2',
): Promise<PyKmipResult[]> {
  const input = JSON.stringify({
    host: '127.0.0.1',
    port: kmip.port,
    cert: identity.certFile,
    key: identity.keyFile,
    ca: kmip.pki.caFile,
    version,
    steps,
  });
  return new Promise((resolve, reject) => {
    const child = execFile(
      SYSTEM_PYTHON,
      [path.resolve('test/kmip/pykmip_steps.py')],
      { maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`pykmip failed: ${stderr || err.message}`));
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`pykmip printed no JSON: ${stdout}\n${stderr}`));
        }
      },
    );
    child.stdin!.end(input);
  });
}

/** A raw KMIP connection with the door's own codec: for what PyKMIP cannot send (hostile bytes, AAD, MACVerify). */
export class RawKmipClient {
  private readonly framer = new Framer(16 * 1024 * 1024);
  private readonly frames: Buffer[] = [];
  private waiting: (() => void) | undefined;
  closed = false;

  private constructor(readonly socket: TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.frames.push(...this.framer.push(chunk));
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number, ca: Buffer, identity?: KmipIdentity): Promise<RawKmipClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(
        {
          host: '127.0.0.1',
          port,
          ca,
          servername: 'localhost',
          ...(identity ? { cert: readFileSync(identity.certFile), key: readFileSync(identity.keyFile) } : {}),
        },
        () => resolve(new RawKmipClient(socket)),
      );
      socket.once('error', reject);
    });
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next whole response, or undefined when the server closed the connection first. */
  async next(): Promise<TtlvItem | undefined> {
    while (!this.frames.length && !this.closed) await new Promise<void>((resolve) => (this.waiting = resolve));
    const frame = this.frames.shift();
    return frame ? decodeTtlv(frame) : undefined;
  }

  async request(message: TtlvItem): Promise<TtlvItem | undefined> {
    this.send(encodeTtlv(message));
    return this.next();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A Request Message of the given version with one batch item per entry. */
export function kmipRequest(
  version: [number, number],
  items: Array<{ operation: number; payload: TtlvItem[] }>,
): TtlvItem {
  const T = K.Tag;
  return structure(T.RequestMessage, [
    structure(T.RequestHeader, [
      structure(T.ProtocolVersion, [
        integer(T.ProtocolVersionMajor, version[0]),
        integer(T.ProtocolVersionMinor, version[1]),
      ]),
      integer(T.BatchCount, items.length),
    ]),
    ...items.map((i) =>
      structure(T.BatchItem, [enumeration(T.Operation, i.operation), structure(T.RequestPayload, i.payload)]),
    ),
  ]);
}

export interface KmipItemAnswer {
  operation?: number;
  status: number;
  reason?: number;
  message?: string;
  payload?: TtlvItem;
}

/** The batch items of a Response Message, read with the door's codec. */
export function responseItems(response: TtlvItem | undefined): KmipItemAnswer[] {
  if (response?.type !== 'Structure' || response.tag !== K.Tag.ResponseMessage)
    throw new Error('not a Response Message');
  const T = K.Tag;
  const field = (item: TtlvItem, tag: number) =>
    item.type === 'Structure' ? item.value.find((c) => c.tag === tag) : undefined;
  return response.value
    .filter((c) => c.tag === T.BatchItem)
    .map((item) => {
      const op = field(item, T.Operation);
      const reason = field(item, T.ResultReason);
      const message = field(item, T.ResultMessage);
      const status = field(item, T.ResultStatus);
      return {
        ...(op?.type === 'Enumeration' ? { operation: op.value } : {}),
        status: status?.type === 'Enumeration' ? status.value : -1,
        ...(reason?.type === 'Enumeration' ? { reason: reason.value } : {}),
        ...(message?.type === 'TextString' ? { message: message.value } : {}),
        ...(field(item, T.ResponsePayload) ? { payload: field(item, T.ResponsePayload) } : {}),
      };
    });
}
