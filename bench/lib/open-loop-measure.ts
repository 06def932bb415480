import { Pool } from 'undici';
import { openLoop } from '../../test/helpers/open-loop.ts';
import { cpuSeconds, load } from './harness.ts';

/** What one server did: closed loop before and after, and the open loop between them. */
export interface OpenLoopResult {
  name: string;
  closedRpsBefore: number;
  closedRpsAfter: number;
  /** Mean of the two closed loops' CPU per request: a drift of the machine's speed during the run moves both. */
  closedCpuPerRequestMs: number;
  rate: number;
  answered: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  cpuPerRequestMs: number;
  inFlightFirst: number;
  inFlightLast: number;
  /** CPU of this process (the load generator) per second of the open loop: near 1, the generator is what lags. */
  generatorCores: number;
}

export const CLIENT_CONNECTIONS = 64;
const GENERATOR_WARM_UP_SECONDS = 3;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/**
 * On a warmed-up server: a closed loop, then `rateOf(closed req/s)` requests a second on a schedule for
 * `seconds`, whatever the answers (latency from when each was due), then a second closed loop. The open loop
 * starts after GENERATOR_WARM_UP_SECONDS of the same schedule that are not counted: this process's request
 * path is compiled by then, as a running client's is, and its first requests do not measure the compiler.
 */
export async function measureOpenLoop(
  name: string,
  server: { url: string; pid: number; urlPath: string; body: string },
  rateOf: (closedRps: number) => number,
  seconds: number,
  closedSeconds: number,
): Promise<OpenLoopResult> {
  const { url, pid, urlPath, body } = server;
  const target = `${url}${urlPath}`;
  const parsed = JSON.parse(body) as unknown;
  const before = await load(`closed loop, ${name}`, target, parsed, closedSeconds, pid);
  const rate = rateOf(before.rps);
  // Connections opened before the clock starts, as a client's pool holds them: opening them under load
  // would measure TCP handshakes. A request beyond them waits in the pool, and that wait counts.
  const pool = new Pool(url, { connections: CLIENT_CONNECTIONS, pipelining: 1, keepAliveTimeout: 120_000 });
  const send = async (): Promise<number> => {
    const res = await pool.request({
      path: urlPath,
      method: 'POST',
      headers: { 'x-svc-user': 'bench', 'content-type': 'application/json' },
      body,
    });
    await res.body.text();
    return res.statusCode;
  };
  await openLoop(Math.round(rate * GENERATOR_WARM_UP_SECONDS), rate, send, () => {});
  const latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(inFlight), 100);
  const cpu0 = cpuSeconds(pid);
  const generator0 = process.cpuUsage();
  const t0 = performance.now();
  const n = Math.round(rate * seconds);
  process.stderr.write(`open loop, ${name}: ${n} requests at ${rate.toFixed(0)} a second\n`);
  await openLoop(
    n,
    rate,
    async () => {
      inFlight++;
      try {
        return await send();
      } catch {
        return 0;
      } finally {
        inFlight--;
      }
    },
    (status, due) => {
      latencies.push(performance.now() - due);
      if (status !== 200) errors++;
    },
  );
  clearInterval(sampler);
  const cpu = cpuSeconds(pid) - cpu0;
  const generator = process.cpuUsage(generator0);
  const generatorCores = (generator.user + generator.system) / 1000 / (performance.now() - t0);
  await pool.close();
  const after = await load(`closed loop again, ${name}`, target, parsed, closedSeconds, pid);
  const sorted = latencies.sort((a, b) => a - b);
  const tenSeconds = Math.min(100, Math.floor(samples.length / 3));
  const result: OpenLoopResult = {
    name,
    closedRpsBefore: before.rps,
    closedRpsAfter: after.rps,
    closedCpuPerRequestMs: mean([1000 / before.perCpuSecond, 1000 / after.perCpuSecond]),
    rate,
    answered: latencies.length,
    errors,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
    cpuPerRequestMs: (cpu * 1000) / latencies.length,
    inFlightFirst: mean(samples.slice(0, tenSeconds)),
    inFlightLast: mean(samples.slice(-tenSeconds)),
    generatorCores,
  };
  process.stderr.write(
    `  p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, CPU ${result.cpuPerRequestMs.toFixed(3)} ms a request (closed loop ${result.closedCpuPerRequestMs.toFixed(3)})\n`,
  );
  return result;
}
