#!/usr/bin/env node
// `make mock` (and the [mock] of `make dev`): the Prism mock of generated/openapi.json, behind a
// thin proxy on --host (127.0.0.1) and --port (MOCK_PORT, 4010).
//
// Prism validates every request, but when a request breaks the schema it answers the operation's
// first 422 example (ValidationFailed, whatever was sent) and lists the real violations only in its
// `sl-violations` header. The proxy turns those violations into the problem the server answers: a
// ValidationProblem whose `errors[]` hold the server's pointers (`/body/title`, `/query/limit`,
// `/headers/if-match`) and messages (`is required`, `is not an allowed property`, ajv's words for the
// rest). Every other answer, and a 422 whose example the client chose (`Prefer: example=`), passes
// through untouched. Prism has no setting for this: its 422 body is an example or its own
// `validation` list, never our shape.
//
// Prism runs on a free local port of its own and reloads itself when the bundle changes; the proxy
// listens only once Prism answers, so a client that can connect gets the mock.
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: process.env.MOCK_PORT || '4010' },
    spec: { type: 'string', default: 'generated/openapi.json' },
  },
});
const API_ROOT = '/api/v1';
const PRISM_HOST = '127.0.0.1';

/** A free port on the loopback address (Prism's own, behind the proxy). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, PRISM_HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Whether the client picked the example it wants (then Prism's answer is what it asked for). */
const choosesExample = (prefer) => typeof prefer === 'string' && /(?:^|[,;\s])example=/.test(prefer);

/**
 * The server's field errors for Prism's violations (ajv errors, as prism-http's convertAjvErrors
 * writes them): `location` is `['request', where, ...instancePath]`, `message` ajv's message after
 * a description of the place ("Request body property tags.0 ") and before Prism's additions (the
 * allowed values of an enum, the property found).
 */
function fieldErrors(violations) {
  const errors = violations.filter((v) => v.severity === 'Error' || v.severity === 0);
  // As the server does: a oneOf/anyOf summary only when nothing more precise was found.
  const precise = errors.filter((v) => v.code !== 'oneOf' && v.code !== 'anyOf');
  const seen = new Set();
  const found = [];
  for (const violation of precise.length > 0 ? precise : errors) {
    const [, where = 'body', ...path] = Array.isArray(violation.location) ? violation.location : [];
    const place = `Request ${where} ${path.length > 0 ? `${where === 'body' ? 'property' : 'parameter'} ${path.join('.')} ` : ''}`;
    let message = String(violation.message ?? '');
    if (message.startsWith(place)) message = message.slice(place.length);
    const segments = [where === 'header' ? 'headers' : where, ...(where === 'header' ? path.map((s) => s.toLowerCase()) : path)];
    const required = violation.code === 'required' && /must have required property '(.*)'$/.exec(message);
    const additional = violation.code === 'additionalProperties' && /; found '(.*)'$/.exec(message);
    if (required) {
      segments.push(where === 'header' ? required[1].toLowerCase() : required[1]);
      message = 'is required';
    } else if (additional) {
      segments.push(additional[1]);
      message = 'is not an allowed property';
    } else if (violation.code === 'enum') {
      message = message.replace(/^(must be equal to one of the allowed values):.*$/s, '$1');
    }
    const pointer = `/${segments.join('/')}`;
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ pointer, message: message || 'is invalid' });
  }
  return found;
}

/** The server's 422 problem for the violations of a request to `path` (the mock's path, without the API root). */
function validationProblem(violations, path) {
  const errors = fieldErrors(violations);
  const count = errors.length;
  return {
    type: 'https://margincms.dev/problems/validation-failed',
    title: 'Validation failed',
    status: 422,
    detail: `The request has ${count} invalid field${count === 1 ? '' : 's'}.`,
    instance: API_ROOT + path,
    errors,
  };
}

function violationsOf(header) {
  if (typeof header !== 'string') return null;
  try {
    const parsed = JSON.parse(header);
    return Array.isArray(parsed) && parsed.length > 0 ? parsed : null;
  } catch {
    return null;
  }
}

function proxy(prismPort) {
  return createServer((req, res) => {
    const upstream = httpRequest(
      { host: PRISM_HOST, port: prismPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const violations =
          answer.statusCode === 422 && !choosesExample(req.headers.prefer) ? violationsOf(answer.headers['sl-violations']) : null;
        const errors = violations && fieldErrors(violations);
        if (!errors || errors.length === 0) {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
          answer.pipe(res);
          return;
        }
        answer.resume();
        answer.on('end', () => {
          const body = JSON.stringify(validationProblem(violations, (req.url ?? '/').replace(/[?#].*$/s, '')));
          const headers = { ...answer.headers };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          headers['content-type'] = 'application/problem+json';
          headers['content-length'] = String(Buffer.byteLength(body));
          res.writeHead(422, headers);
          res.end(body);
        });
      },
    );
    upstream.on('error', (error) => {
      // Prism is restarting on a new bundle, or gone.
      if (res.headersSent) {
        res.destroy(error);
        return;
      }
      const body = JSON.stringify({
        type: 'about:blank',
        title: 'Bad Gateway',
        status: 502,
        detail: `The Prism mock did not answer: ${error.message}.`,
      });
      res.writeHead(502, { 'content-type': 'application/problem+json', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
    req.pipe(upstream);
  });
}

/** Resolves once Prism answers on its port; rejects when it exits first. */
function ready(prism, prismPort) {
  return new Promise((resolve, reject) => {
    let done = false;
    prism.once('exit', (code, signal) => {
      if (!done) reject(new Error(`Prism exited before it was ready (code ${code}, signal ${signal})`));
    });
    const poll = () => {
      if (done) return;
      const probe = httpRequest({ host: PRISM_HOST, port: prismPort, path: '/healthz', timeout: 2000 }, (answer) => {
        answer.resume();
        done = true;
        resolve();
      });
      probe.on('error', () => setTimeout(poll, 200));
      probe.on('timeout', () => probe.destroy());
      probe.end();
    };
    poll();
  });
}

async function main() {
  const prismPort = await freePort();
  const prism = spawn(`${root}node_modules/.bin/prism`, ['mock', values.spec, '--host', PRISM_HOST, '--port', String(prismPort)], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = (signal) => {
    if (prism.exitCode === null && prism.signalCode === null) prism.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => stop(signal));
  process.once('exit', () => stop('SIGTERM'));

  try {
    await ready(prism, prismPort);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
  const server = proxy(prismPort);
  server.once('error', (error) => {
    console.error(`The mock cannot listen on ${values.host}:${values.port}: ${error.message} (${error.code})`);
    stop('SIGTERM');
    process.exit(1);
  });
  server.listen(Number(values.port), values.host, () => {
    console.log(`The mock (Prism, 422s as the server writes them) is on http://${values.host}:${values.port}`);
  });
  prism.once('exit', (code, signal) => {
    server.close();
    process.exit(code ?? (signal ? 0 : 1));
  });
}

await main();
