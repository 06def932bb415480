import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { PreflightNode } from '../../../kernel/index.ts';
import type { KmipSettings } from './config.ts';

const SETTINGS: Array<[keyof KmipSettings, string, string]> = [
  ['certFile', 'kmip.tls.certFile', 'SVC_KMIP_TLS_CERT_FILE'],
  ['keyFile', 'kmip.tls.keyFile', 'SVC_KMIP_TLS_KEY_FILE'],
  ['clientCaFile', 'kmip.tls.clientCaFile', 'SVC_KMIP_TLS_CLIENT_CA_FILE'],
];

/**
 * KMIP is mutual TLS or nothing: the certificate, its key and the client CA are required, must be
 * readable, and the key must match the certificate. Any problem fails the boot naming the setting.
 */
export function kmipTlsPreflight(config: KmipSettings): PreflightNode {
  const name = 'kmip.tls';
  const files: Partial<Record<keyof KmipSettings, Buffer>> = {};
  for (const [field, setting, env] of SETTINGS) {
    const file = String(config[field]);
    if (!file)
      return {
        name,
        status: 'fail',
        message: `${setting} is required when kmip.enabled is true`,
        advice: `set ${env}`,
      };
    try {
      files[field] = readFileSync(file);
    } catch (err) {
      return {
        name,
        status: 'fail',
        message: `${setting}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        advice: `check ${env}`,
      };
    }
  }
  try {
    createSecureContext({ cert: files.certFile, key: files.keyFile, ca: files.clientCaFile });
  } catch (err) {
    return {
      name,
      status: 'fail',
      message: `kmip.tls: the certificate, key and client CA do not make a TLS context (${(err as Error).message})`,
      advice: 'check that kmip.tls.keyFile is the key of kmip.tls.certFile and both are PEM',
    };
  }
  return { name, status: 'ok', message: `KMIP on ${config.host}:${config.port}, mutual TLS` };
}
