/** The logging and trace extensions: settings read and changed through the data plane. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DataPlane, SettingsPatch } from '../../dataplane/index.js';
import { routeExtras } from './model-route.js';
import { modelParams, settingsBody, settingsResponse } from './route-schemas.js';

interface SettingsRoute { Params: { model?: string; version?: string }; Body?: SettingsPatch }
type Req = FastifyRequest<SettingsRoute>;

export function registerSettingsRoutes(app: FastifyInstance, plane: DataPlane): void {
  const logging = routeExtras({ jsonBody: 'logging settings', schema: { body: settingsBody, response: settingsResponse } });
  app.get('/v2/logging', { schema: { response: settingsResponse } }, () => plane.logSettings());
  app.post<SettingsRoute>('/v2/logging', logging, (req: Req) => plane.logSettings(req.body));

  const trace = (req: Req) => plane.traceSettings(req.params, req.method === 'POST' ? req.body : undefined);
  for (const url of ['/v2/trace/setting', '/v2/models/:model/trace/setting', '/v2/models/:model/versions/:version/trace/setting']) {
    const params = url === '/v2/trace/setting' ? undefined : modelParams;
    app.get<SettingsRoute>(url, routeExtras({ schema: { response: settingsResponse } }, params), trace);
    app.post<SettingsRoute>(url, routeExtras({ jsonBody: 'trace settings', schema: { body: settingsBody, response: settingsResponse } }, params), trace);
  }
}
