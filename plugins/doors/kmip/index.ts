import {
  clockPort,
  definePlugin,
  doorPort,
  KERNEL_API_VERSION,
  loggerPort,
  operationRunnerPort,
} from '../../../kernel/index.ts';
import { kmipSettings, type KmipSettings } from './config.ts';
import { KmipDoor } from './kmip-door.ts';
import { kmipTlsPreflight } from './tls-preflight.ts';

export default definePlugin({
  id: 'kmip',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description:
    'KMIP (binary TTLV over mutual TLS) on its own port: client ' +
    'certificates as Service principals, every operation through the one pipeline',
  dependsOn: { runner: operationRunnerPort, logger: loggerPort, clock: clockPort },
  settings: kmipSettings,
  configure: ({ kmip }, deployment): KmipSettings => ({
    host: kmip.host || deployment.http.host,
    port: kmip.port,
    certFile: kmip.tls.certFile,
    keyFile: kmip.tls.keyFile,
    clientCaFile: kmip.tls.clientCaFile,
    maxConnections: kmip.maxConnections,
    handshakeTimeoutMs: kmip.handshakeTimeoutMs,
    maxPendingHandshakes: kmip.maxPendingHandshakes,
  }),
  preflight: (config) => [kmipTlsPreflight(config)],
  create: ({ config, deps }) => new KmipDoor(config, deps.runner, deps.logger, deps.clock),
});
