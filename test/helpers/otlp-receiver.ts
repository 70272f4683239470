/**
 * A real OTLP/HTTP traces receiver on loopback: it accepts what an exporter POSTs to
 * /v1/traces, in JSON or protobuf, and decodes the spans so tests assert on what a
 * collector would receive. The protobuf side is a small reader of the wire format
 * for the fields of opentelemetry/proto/trace/v1 that tests look at.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (SpanKind in the proto). */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** Unix time in nanoseconds. */
  endTime: bigint;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body exactly as received, to prove what is not in them. */
  bodies: Buffer[];
  contentTypes: string[];
  waitForSpan(name: string, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

// --- protobuf wire format -------------------------------------------------------------

type Field = { number: number; varint?: bigint; bytes?: Buffer; fixed64?: Buffer };

function readVarint(buffer: Buffer, at: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const byte = buffer[at++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at];
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  for (let at = 0; at < buffer.length; ) {
    const [key, next] = readVarint(buffer, at);
    at = next;
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [varint, after] = readVarint(buffer, at);
      out.push({ number, varint });
      at = after;
    } else if (wire === 1) {
      out.push({ number, fixed64: buffer.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const [length, after] = readVarint(buffer, at);
      out.push({ number, bytes: buffer.subarray(after, after + Number(length)) });
      at = after + Number(length);
    } else if (wire === 5) {
      at += 4;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
  }
  return out;
}

const all = (list: Field[], number: number) => list.filter((field) => field.number === number);
const one = (list: Field[], number: number) => all(list, number)[0];

function protoValue(any: Buffer): AttributeValue {
  const field = fields(any)[0];
  if (!field) return '';
  if (field.number === 1) return field.bytes!.toString('utf8');
  if (field.number === 2) return field.varint !== 0n;
  if (field.number === 3) return Number(BigInt.asIntN(64, field.varint!));
  if (field.number === 4) return field.fixed64!.readDoubleLE(0);
  return `<${field.number}>`;
}

function protoAttributes(list: Field[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const pair of list) {
    const kv = fields(pair.bytes!);
    attributes[one(kv, 1)!.bytes!.toString('utf8')] = protoValue(one(kv, 2)?.bytes ?? Buffer.alloc(0));
  }
  return attributes;
}

function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of all(fields(body), 1)) {
    const rs = fields(resourceSpans.bytes!);
    const resource = protoAttributes(all(fields(one(rs, 1)?.bytes ?? Buffer.alloc(0)), 1));
    for (const scopeSpans of all(rs, 2)) {
      for (const spanField of all(fields(scopeSpans.bytes!), 2)) {
        const span = fields(spanField.bytes!);
        const status = one(span, 15)?.bytes;
        spans.push({
          traceId: one(span, 1)!.bytes!.toString('hex'),
          spanId: one(span, 2)!.bytes!.toString('hex'),
          parentSpanId: one(span, 4)?.bytes?.toString('hex') ?? '',
          name: one(span, 5)!.bytes!.toString('utf8'),
          kind: Number(one(span, 6)?.varint ?? 0n),
          attributes: protoAttributes(all(span, 9)),
          statusCode: status ? Number(one(fields(status), 3)?.varint ?? 0n) : 0,
          endTime: one(span, 8)!.fixed64!.readBigUInt64LE(0),
          resource,
        });
      }
    }
  }
  return spans;
}

// --- OTLP/JSON ------------------------------------------------------------------------

type JsonValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
type JsonAttributes = { key: string; value: JsonValue }[] | undefined;

function jsonAttributes(list: JsonAttributes): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    attributes[key] = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue ?? '');
  }
  return attributes;
}

function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: {
      resource?: { attributes: JsonAttributes };
      scopeSpans: {
        spans: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes: JsonAttributes;
          status?: { code?: number };
          endTimeUnixNano: string | number;
        }[];
      }[];
    }[];
  };
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        statusCode: span.status?.code ?? 0,
        endTime: BigInt(span.endTimeUnixNano),
        resource: jsonAttributes(rs.resource?.attributes),
      })),
    ),
  );
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: Buffer[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      bodies.push(body);
      contentTypes.push(type);
      const json = type.startsWith('application/json');
      spans.push(...(json ? decodeJson(body) : decodeProtobuf(body)));
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    spans,
    bodies,
    contentTypes,
    async waitForSpan(name, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const span = spans.find((candidate) => candidate.name === name);
        if (span) return span;
        if (Date.now() > until) throw new Error(`no span "${name}" within ${timeoutMs} ms; got: ${spans.map((s) => s.name).join(', ')}`);
        // sleeps because this is the interval of a poll that returns what it found (expect.poll returns nothing)
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
