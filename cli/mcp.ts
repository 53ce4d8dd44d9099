// pdi mcp --key KEY: the MCP server over stdio, for clients that start a local command (Claude
// Desktop, Cursor…). It relays each JSON-RPC message to the running API's /mcp and back, so the key,
// its tier and its quota are checked where /v1 checks them, on the one counter of the server process
// (a second process counting on its own would let a key past its quota).
import net from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { config, parse, UsageError, type Command } from './common.js';

const USAGE = `Usage:
  pdi mcp [--key KEY] [--url URL]
      Serves the MCP tools over stdio (Enterprise keys), relayed to the API's /mcp.
      --key  the API key; better PDI_API_KEY in the environment (argv shows in the process list)
      --url  the API's address (default: http://127.0.0.1:PORT); https unless on this machine
      Client configuration: docs/mcp.md.`;

/** What the API said when it refused (its `detail`), else the transport's own message. */
function reasonOf(err: unknown, url: string): string {
  if (err instanceof StreamableHTTPError) {
    const message = err.message;
    const json = message.indexOf('{');
    if (json !== -1) {
      try {
        const detail = (JSON.parse(message.slice(json)) as { detail?: unknown }).detail;
        if (typeof detail === 'string') return detail;
      } catch {
        // Not the API's JSON: the message as it is.
      }
    }
    return message;
  }
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return cause ? `The API at ${url} does not answer (${cause})` : String((err as Error).message ?? err);
}

/** Whether `host` (as URL.hostname gives it) names this machine. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || bare === '::1' || (net.isIPv4(bare) && bare.startsWith('127.'));
}

function requestId(message: JSONRPCMessage): string | number | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

export const mcpCommand: Command = {
  usage: USAGE,
  async run(argv) {
    const { values } = parse({ usage: USAGE }, argv, { key: { type: 'string' }, url: { type: 'string' } });
    const key = values.key ?? process.env.PDI_API_KEY;
    if (!key) throw new UsageError(`--key (or PDI_API_KEY) is required\n\n${USAGE}`);
    const base = values.url ?? `http://127.0.0.1:${config().port}`;
    let url: URL;
    try {
      url = new URL('/mcp', base);
    } catch {
      throw new UsageError(`--url is not an address: ${base}\n\n${USAGE}`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      throw new UsageError(
        `--url must use https unless it is on this machine (localhost, 127.0.0.1, ::1): the key would cross the network in clear to ${url.host}`,
      );
    }

    const stdio = new StdioServerTransport();
    const http = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
    const initializing = new Set<string | number>();

    stdio.onmessage = (message) => {
      const id = requestId(message);
      if (id !== undefined && 'method' in message && message.method === 'initialize') initializing.add(id);
      http.send(message).catch((err: unknown) => {
        // A request the API refused (401, 403) or never got still gets its answer, or the client waits forever.
        if (id !== undefined) void stdio.send({ jsonrpc: '2.0', id, error: { code: -32000, message: reasonOf(err, base) } });
        else process.stderr.write(`pdi mcp: ${reasonOf(err, base)}\n`);
      });
    };
    http.onmessage = (message) => {
      // What the SDK's Client does after initializing: later requests name the protocol version.
      if ('result' in message && initializing.delete(message.id)) {
        const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === 'string') http.setProtocolVersion(version);
      }
      void stdio.send(message);
    };
    http.onerror = (err) => process.stderr.write(`pdi mcp: ${reasonOf(err, base)}\n`);

    const closed = new Promise<void>((resolve) => {
      stdio.onclose = resolve;
    });
    await http.start();
    await stdio.start();
    // The client closed stdin: nothing more to relay.
    process.stdin.once('end', () => void stdio.close());
    await closed;
    await http.close();
  },
};
