import type { FastifyReply, onRequestHookHandler, RouteOptions } from 'fastify';
import { Errors, type TributaryError } from '../../errors.js';
import { headerMatches } from './header-matches.js';
import { httpRouteCategory } from './http-route-category.js';
import type { RestrictionTable } from './parse-restrictions.js';

/**
 * An `onRoute` hook for the HTTP front end: every route must have a category (a route added
 * without one stops the server at start, so nothing new is left open by mistake), and a route of
 * a restricted category gets its own `onRequest` check, which runs before the body is read or
 * inflated. Open routes get no hook at all: restriction costs nothing where it is not asked for.
 */
export function restrictHttpRoutes(
  table: RestrictionTable,
  send: (reply: FastifyReply, error: TributaryError) => unknown,
): (route: RouteOptions) => void {
  return (route) => {
    const category = httpRouteCategory(route.url);
    if (!category) {
      throw Errors.restrictCategoryMissing(`HTTP route ${String(route.method)} ${route.url}`, 'src/frontend/restrict/http-route-category.ts');
    }
    const restriction = table.get(category);
    if (!restriction) return;
    // One refusal per route, made once: its message is all a refused client receives.
    const refusal = Errors.restricted('API', restriction.header);
    const check: onRequestHookHandler = (request, reply, done) => {
      if (headerMatches(restriction, request.headers[restriction.key])) done();
      else send(reply, refusal);
    };
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [check, ...own];
  };
}
