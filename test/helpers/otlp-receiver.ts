import { createServer, type Server } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/** The parts of the OTLP trace protocol (opentelemetry-proto, trace/v1) a test reads back. */
const OTLP_PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message Scope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
`;
const Request = protobuf.parse(OTLP_PROTO, { keepCase: false }).root.lookupType('ExportTraceServiceRequest');

/** One span as the test reads it, whatever the wire format it came in. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, string>;
  statusCode: number;
  serviceName: string;
}

const hex = (v: unknown): string => (typeof v === 'string' ? v : Buffer.from((v as Uint8Array) ?? []).toString('hex'));
const attrs = (list: Array<{ key: string; value?: Record<string, unknown> }> | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, String(Object.values(a.value ?? {})[0] ?? '')]));

function spansOf(request: any): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs: any) =>
    (rs.scopeSpans ?? []).flatMap((ss: any) =>
      (ss.spans ?? []).map((s: any) => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId),
        name: s.name,
        attributes: attrs(s.attributes),
        statusCode: Number(s.status?.code ?? 0),
        serviceName: attrs(rs.resource?.attributes)['service.name'] ?? '',
      })),
    ),
  );
}

export const decodeProtobuf = (body: Buffer): ReceivedSpan[] =>
  spansOf(Request.toObject(Request.decode(body), { longs: String, bytes: Buffer }));

export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  /** Content types of the requests received, to show which wire format the exporter used. */
  contentTypes: string[];
  close(): Promise<void>;
}

/** A real OTLP/HTTP trace receiver on 127.0.0.1 that decodes JSON and protobuf bodies. */
export async function httpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      spans.push(...(type.includes('json') ? spansOf(JSON.parse(body.toString('utf8'))) : decodeProtobuf(body)));
      res.writeHead(200, { 'Content-Type': type.includes('json') ? 'application/json' : 'application/x-protobuf' });
      res.end(type.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A real OTLP/gRPC trace receiver (TraceService/Export) on 127.0.0.1. */
export async function grpcReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = new grpc.Server();
  const identity = (b: Buffer) => b;
  server.addService(
    {
      Export: {
        path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    {
      Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => (
        spans.push(...decodeProtobuf(call.request)), done(null, Buffer.alloc(0))
      ),
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes: ['application/grpc'],
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}
