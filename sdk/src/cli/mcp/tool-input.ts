/**
 * A tool's arguments (all text here) declared once: the JSON Schema a host shows its model, and
 * the check of what the model actually sent, with a message it can act on. The low-level MCP
 * server leaves that check to the tool.
 */

export interface ArgumentSpec {
  description: string;
  required?: boolean;
}

type ArgumentsOf<Specs extends Record<string, ArgumentSpec>> = {
  [Name in keyof Specs]: Specs[Name]['required'] extends true ? string : string | undefined;
};

export interface ToolInput<Arguments> {
  schema: {
    type: 'object';
    properties: Record<string, { type: 'string'; description: string; minLength?: number }>;
    required: string[];
    additionalProperties: false;
  };
  /** Throws ToolArgumentError when `given` does not fit the schema. */
  read(given: Record<string, unknown> | undefined): Arguments;
}

/** Wrong arguments: the tool answers with this message as its error, no call made. */
export class ToolArgumentError extends Error {
  override name = 'ToolArgumentError';
}

export function textArguments<const Specs extends Record<string, ArgumentSpec>>(specs: Specs): ToolInput<ArgumentsOf<Specs>> {
  const names = Object.keys(specs);
  const required = names.filter((name) => specs[name]!.required === true);
  const properties = Object.fromEntries(
    names.map((name) => [name, { type: 'string' as const, description: specs[name]!.description, ...(specs[name]!.required ? { minLength: 1 } : {}) }]),
  );
  return {
    schema: { type: 'object', properties, required, additionalProperties: false },
    read(given = {}) {
      const unknown = Object.keys(given).find((name) => !Object.hasOwn(specs, name));
      if (unknown !== undefined) throw new ToolArgumentError(`unknown argument "${unknown}"; the arguments are ${names.join(', ')}`);
      const read: Record<string, string | undefined> = {};
      for (const name of names) {
        const value = given[name];
        if (value === undefined || value === null) {
          if (specs[name]!.required) throw new ToolArgumentError(`${name} is required: ${specs[name]!.description}`);
          continue;
        }
        if (typeof value !== 'string') throw new ToolArgumentError(`${name} must be a string`);
        if (value === '' && specs[name]!.required) throw new ToolArgumentError(`${name} must not be empty`);
        read[name] = value;
      }
      return read as ArgumentsOf<Specs>;
    },
  };
}
