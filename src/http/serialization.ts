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

/**
 * Shared schemas serialized as JSON.stringify writes the value, not property by property:
 * fast-json-stringify writes an object's declared properties first and then the others, which
 * would move a persona's well-known attribute keys ahead of the rest. The OpenAPI document
 * keeps the full schema (docs/http-contract.md, "Response bodies").
 */
const SERIALIZED_AS_IS: Record<string, object> = {
  PersonaAttributes: { $id: 'PersonaAttributes', type: 'object', additionalProperties: true },
  StoredPersonaAttributes: { $id: 'StoredPersonaAttributes', type: 'object', additionalProperties: true },
};

function forSerialization(externalSchemas: unknown): unknown {
  if (externalSchemas === null || typeof externalSchemas !== 'object') return externalSchemas;
  return Object.fromEntries(
    Object.entries(externalSchemas).map(([key, schema]) => [key, SERIALIZED_AS_IS[(schema as { $id?: string } | null)?.$id ?? ''] ?? schema]),
  );
}

export const memoizedSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(forSerialization(externalSchemas) as typeof externalSchemas, options);
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
