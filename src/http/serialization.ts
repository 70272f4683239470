/**
 * Response serializers, compiled once per distinct schema, on first use. Every route declares
 * the same error schema for eight or nine statuses; Fastify would compile each of them
 * separately at startup, and compiling even the distinct ones up front was a good part of
 * the cold start. A response schema is compiled the first time a response of that status
 * is sent (a millisecond or two, once).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

export const memoizedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const compiled = new Map<string, Serializer>();
  return (route) => {
    const key = JSON.stringify(route.schema);
    let serializer = compiled.get(key);
    if (!serializer) {
      let compiledSerializer: Serializer | undefined;
      serializer = (data) => (compiledSerializer ??= compile(route))(data);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};
