// pdi serve: the same as npm start.
import { parse, type Command } from './common.js';

const USAGE = `Usage: pdi serve
  Serves the API on PORT (default 8000) with state in PDI_DATA_DIR (default ./var).
  The engine is Elasticsearch when ELASTICSEARCH_URL is set, else the embedded one.`;

export const serveCommand: Command = {
  usage: USAGE,
  async run(argv) {
    parse({ usage: USAGE }, argv, {});
    // Loaded lazily so that other commands do not load restify.
    const { main } = await import('../api/server.js');
    await main();
  },
};
