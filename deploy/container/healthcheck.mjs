// The image's HEALTHCHECK: GET /healthz on the service's own port, over HTTPS when the listener has a
// certificate. Liveness only: a local probe of this process, so the certificate's name is not checked
// (the listener may carry a name that 127.0.0.1 is not).
import http from 'node:http';
import https from 'node:https';

const port = Number(process.env.SVC_HTTP_PORT || 8080);
const tls = Boolean(process.env.SVC_HTTP_TLS_CERT_FILE);
const request = (tls ? https : http).get(
  { host: '127.0.0.1', port, path: '/healthz', timeout: 4000, ...(tls ? { rejectUnauthorized: false } : {}) },
  (res) => {
    res.resume();
    process.exit(res.statusCode === 200 ? 0 : 1);
  },
);
request.on('timeout', () => request.destroy(new Error('timeout')));
request.on('error', () => process.exit(1));
