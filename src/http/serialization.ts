/**
 * Response serializers, compiled once per distinct schema. Every route
 * declares the same error schema for eight or nine statuses; Fastify would
 * compile each of them separately at startup, which was a good part of our
 * cold start (DESIGN.md §7: ≤ 1 s).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

export const memoizedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const compiled = new Map<string, ReturnType<typeof compile>>();
  return (route) => {
    const key = JSON.stringify(route.schema);
    let serializer = compiled.get(key);
    if (!serializer) {
      serializer = compile(route);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};
