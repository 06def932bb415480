/**
 * Whether `host` (a bind address or a URL's hostname without IPv6 brackets) names this machine only:
 * `localhost`, `::1` or any 127.x.y.z. Decides whether the listener is exposed (TLS and dev-grade plugins
 * are refused then) and whether an outbound URL may be plain http://.
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
