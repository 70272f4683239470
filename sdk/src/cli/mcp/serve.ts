/**
 * The MCP server: the tools and resources wired to one client of the service, over stdin/stdout
 * until the host closes stdin. A tool that fails answers `isError` with the service's message, for
 * the model to read; a resource has no such answer, so one that cannot be read is MCP's error.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { PersonaRefineError } from '../../index.js';
import { describeError } from '../describe-error.js';
import type { CliContext } from '../io.js';
import { listPersonaResources, personaIdOf, personaTemplate, readPersonaResource } from './persona-resources.js';
import { CliIoTransport } from './stdio-transport.js';
import { personaTools } from './tools.js';

/** MCP's code for an unknown resource (the specification's; the SDK has no name for it). */
const RESOURCE_NOT_FOUND = -32002;

export interface McpOptions {
  version: string;
  /** refine's provider when the call names none. */
  defaultProvider: string;
}

export async function serveMcp(context: CliContext, { version, defaultProvider }: McpOptions): Promise<number> {
  const { io } = context;
  const client = context.client();
  const tools = personaTools(defaultProvider);
  const server = new Server(
    { name: 'persona-refine', title: 'persona-refine', version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Personas are stored voices (tone, audience, vocabulary, rules). list_personas gives their ids; refine rewrites text in ' +
        'a persona\'s voice; check scores text against one without changing it.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, title, description, inputSchema, outputSchema }) => ({ name, title, description, inputSchema, outputSchema })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }, { signal }): Promise<CallToolResult> => {
    const tool = tools.find((candidate) => candidate.name === params.name);
    if (!tool) return failed(`unknown tool "${params.name}"; the tools are ${tools.map(({ name }) => name).join(', ')}`);
    try {
      const result = await tool.call(params.arguments, { client, env: io.env, signal });
      // The JSON as text too, for hosts that show a tool's text and not its structured content.
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      return failed(describeError(error));
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, { signal }) => {
    try {
      return { resources: await listPersonaResources(client, signal) };
    } catch (error) {
      throw new McpError(ErrorCode.InternalError, describeError(error));
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [personaTemplate] }));

  server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }, { signal }) => {
    const id = personaIdOf(uri);
    if (id === undefined) throw new McpError(ErrorCode.InvalidParams, `no resource "${uri}": resources are persona://ID`);
    try {
      return { contents: [await readPersonaResource(client, uri, id, signal)] };
    } catch (error) {
      const notFound = error instanceof PersonaRefineError && error.status === 404;
      throw new McpError(notFound ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, describeError(error), { uri });
    }
  });

  // Stdout is the protocol's: anything worth a person's eye goes to stderr, which hosts keep as the server's log.
  server.onerror = (error) => io.stderr.write(`persona-refine mcp: ${error.message}\n`);
  const transport = new CliIoTransport(io);
  await server.connect(transport);
  io.stderr.write(`persona-refine mcp: serving ${new URL(context.baseUrl).origin} over stdio; refine's default provider is ${defaultProvider}\n`);
  await transport.closed;
  return 0;
}

function failed(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}
