export { RESTRICTED_CATEGORIES, type RestrictedCategory } from './restricted-category.js';
export { headerMatches } from './header-matches.js';
export { parseRestrictions, GRPC_HEADER_PREFIX, type RestrictionTable } from './parse-restrictions.js';
export { httpRouteCategory } from './http-route-category.js';
export { restrictHttpRoutes } from './restrict-http-routes.js';
export { GRPC_METHOD_CATEGORY, GRPC_STREAMING_METHODS } from './grpc-method-category.js';
export { grpcGuard, restrictGrpcHandlers } from './restrict-grpc.js';
export { exposureWarnings, isLoopbackAddress, type FrontEndExposure } from './exposure-warnings.js';
