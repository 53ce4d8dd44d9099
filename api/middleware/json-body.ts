// The JSON body parser, registered only on routes that take a body (parsing costs on every request
// otherwise). Bodies over 1 MiB get 413; a body that is not JSON gets 400.
import restify from 'restify';

export const MAX_BODY_BYTES = 1024 * 1024;

export const jsonBody = restify.plugins.bodyParser({ mapParams: false, maxBodySize: MAX_BODY_BYTES });
