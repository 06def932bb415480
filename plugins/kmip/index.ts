import { clockPort, definePlugin, doorPort, KERNEL_API_VERSION, loggerPort, operationRunnerPort, type ConfigValues } from '../../kernel/index.ts';
import { kmipConfig, type KmipSettings } from './config.ts';
import { KmipDoor } from './kmip-door.ts';
import { kmipTlsPreflight } from './tls-preflight.ts';

export default definePlugin({
  id: 'kmip',
  apiVersion: KERNEL_API_VERSION,
  provides: doorPort,
  description: 'KMIP (binary TTLV over mutual TLS) on its own port: client certificates as Service principals, every operation through the one pipeline',
  dependsOn: { runner: operationRunnerPort, logger: loggerPort, clock: clockPort },
  config: kmipConfig,
  configSlice: (all: ConfigValues<typeof kmipConfig> & { http: { host: string } }): KmipSettings => ({
    host: all.kmip.host || all.http.host,
    port: all.kmip.port,
    certFile: all.kmip.tls.certFile,
    keyFile: all.kmip.tls.keyFile,
    clientCaFile: all.kmip.tls.clientCaFile,
    maxConnections: all.kmip.maxConnections,
    handshakeTimeoutMs: all.kmip.handshakeTimeoutMs,
    maxPendingHandshakes: all.kmip.maxPendingHandshakes,
  }),
  preflight: (config) => [kmipTlsPreflight(config)],
  create: ({ config, deps }) => new KmipDoor(config, deps.runner, deps.logger, deps.clock),
});
