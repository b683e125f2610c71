/**
 * The logging extension (backed by src/logger.ts) and trace settings. Tracing itself is not
 * implemented: the settings are validated, stored per model and echoed, and `trace` is not listed
 * in the server's extensions.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors.js';
import { getLogSettings, updateLogSettings, type LogSettings } from '../../logger.js';
import type { Server } from '../../server/types.js';
import { jsonBody } from './decode-http-infer.js';
import { sendError } from './send-error.js';

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw Errors.badRequest(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

export function parseLogSettings(body: Record<string, unknown>): Partial<LogSettings> {
  const patch: Partial<LogSettings> = {};
  for (const [k, v] of Object.entries(body)) {
    switch (k) {
      case 'log_file':
        if (v !== getLogSettings().log_file) throw Errors.badRequest(`log_file cannot be changed over the API; start the server with --log-file`);
        break;
      case 'log_info': case 'log_warning': case 'log_error':
        if (typeof v !== 'boolean') throw Errors.badRequest(`logging setting '${k}' must be a boolean`);
        patch[k] = v;
        break;
      case 'log_verbose_level':
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw Errors.badRequest(`logging setting 'log_verbose_level' must be an integer >= 0`);
        patch.log_verbose_level = v;
        break;
      case 'log_format':
        if (v !== 'default' && v !== 'ISO8601') throw Errors.badRequest(`logging setting 'log_format' must be 'default' or 'ISO8601', got ${JSON.stringify(v)}`);
        patch.log_format = v;
        break;
      default:
        throw Errors.badRequest(`unknown logging setting '${k}'; known: log_file, log_info, log_warning, log_error, log_verbose_level, log_format`);
    }
  }
  return patch;
}

type TraceSettings = Record<string, string | string[]>;

const TRACE_DEFAULTS: TraceSettings = {
  trace_file: '', trace_level: ['OFF'], trace_rate: '1000', trace_count: '-1', log_frequency: '0', trace_mode: 'triton',
};

function traceValue(key: string, v: unknown): string | string[] {
  const str = (x: unknown) => (typeof x === 'number' ? String(x) : x);
  switch (key) {
    case 'trace_level': {
      const levels = (Array.isArray(v) ? v : [v]).map(str);
      for (const l of levels) {
        if (l !== 'OFF' && l !== 'TIMESTAMPS' && l !== 'TENSORS') throw Errors.badRequest(`trace_level ${JSON.stringify(l)} must be OFF, TIMESTAMPS or TENSORS`);
      }
      return levels as string[];
    }
    case 'trace_rate': case 'log_frequency': case 'trace_count': {
      const s = str(v);
      const min = key === 'trace_count' ? -1 : 0;
      if (typeof s !== 'string' || !/^-?\d+$/.test(s) || Number(s) < min) throw Errors.badRequest(`trace setting '${key}' must be an integer >= ${min}, got ${JSON.stringify(v)}`);
      return s;
    }
    case 'trace_file': case 'trace_mode':
      if (typeof v !== 'string') throw Errors.badRequest(`trace setting '${key}' must be a string`);
      if (key === 'trace_mode' && v !== 'triton' && v !== 'opentelemetry') throw Errors.badRequest(`trace_mode must be 'triton' or 'opentelemetry'`);
      return v;
    default:
      throw Errors.badRequest(`unknown trace setting '${key}'; known: ${Object.keys(TRACE_DEFAULTS).join(', ')}`);
  }
}

export function registerSettingsRoutes(app: FastifyInstance, server: Server): void {
  app.get('/v2/logging', (_req, reply) => { reply.type('application/json').send(JSON.stringify(getLogSettings())); });
  app.post('/v2/logging', (req, reply) => {
    try {
      const next = updateLogSettings(parseLogSettings(object(jsonBody(req, 'logging settings'), 'logging settings')));
      reply.type('application/json').send(JSON.stringify(next));
    } catch (e) {
      sendError(reply, e);
    }
  });

  const global: TraceSettings = { ...TRACE_DEFAULTS };
  const perModel = new Map<string, TraceSettings>();
  const view = (model?: string) => ({ ...global, ...(model ? perModel.get(model) : undefined) });
  const trace = (req: FastifyRequest<{ Params: { model?: string; version?: string } }>, reply: FastifyReply) => {
    try {
      const { model, version } = req.params;
      if (version !== undefined) throw Errors.badRequest('trace settings are per model, not per version; drop /versions/{v} from the path');
      if (model !== undefined) server.modelMetadata(model); // NOT_FOUND for unknown models
      if (req.method === 'POST') {
        const body = object(jsonBody(req, 'trace settings'), 'trace settings');
        const target = model ? (perModel.get(model) ?? {}) : global;
        for (const [k, v] of Object.entries(body)) {
          if (v === null) {
            // null clears a model override (back to the global value) or restores the default
            if (model) delete target[k];
            else if (k in TRACE_DEFAULTS) target[k] = TRACE_DEFAULTS[k]!;
            else traceValue(k, v);
          } else target[k] = traceValue(k, v);
        }
        if (model) perModel.set(model, target);
      }
      reply.type('application/json').send(JSON.stringify(view(model)));
    } catch (e) {
      sendError(reply, e);
    }
  };
  for (const url of ['/v2/trace/setting', '/v2/models/:model/trace/setting', '/v2/models/:model/versions/:version/trace/setting']) {
    app.get(url, trace);
    app.post(url, trace);
  }
}
