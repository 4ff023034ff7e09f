// The Kubernetes-protocol API server as a request handler: authentication, authorization, routing to
// discovery/OpenAPI or a kind's verbs, Status errors, and the audit record. Shared by hub and simulator.
import { bearerToken } from '../security/authn.js';
import { tokenId } from '../security/tokens.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isStored, type KindRegistry } from '../kinds/registry.js';
import { ALL_VERBS, resourceName, type Verb } from '../kinds/types.js';
import type { Store } from '../store/types.js';
import { ApiError, errors } from '../util/errors.js';
import type { RequestContext } from './context.js';
import { nonResourceAttributes, resourceAttributes } from './authz-attributes.js';
import { shouldAudit } from '../security/audit.js';
import { forbiddenMessage } from '../security/rbac.js';
import { DiscoveryRoutes } from './discovery-routes.js';
import { FieldManager } from './field-manager.js';
import {
  createObject,
  deleteCollection,
  deleteObject,
  getObject,
  listObjects,
  patchObject,
  replaceObject,
  type CrudDeps,
} from './handlers/crud.js';
import { createReview, createToken } from './handlers/reviews.js';
import { watchObjects } from './handlers/watch.js';
import { serveScale } from './handlers/scale.js';
import { requestInfo, type ResourceRequestInfo } from './request-info.js';
import { writeError } from './respond.js';
import type { AuditSink, Authenticator, Authorizer, TokenIssuer, UserInfo } from './types.js';
import type { VersionOptions } from './discovery.js';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface ApiServerOptions {
  registry: KindRegistry;
  store: Store;
  /** Without one every caller is an anonymous administrator (the simulator's plain-HTTP mode). */
  authenticator?: Authenticator;
  authorizer?: Authorizer;
  audit?: AuditSink;
  tokens?: TokenIssuer;
  version?: VersionOptions;
  logger?: Logger;
  /** Extra non-resource paths (e.g. the hub's /metrics), served after authentication and authorization. */
  nonResourceRoutes?: ReadonlyMap<string, (req: IncomingMessage, res: ServerResponse) => void>;
  /**
   * Handlers of subresources the host implements (the simulator's `pods/eviction`, `pods/log`), keyed
   * `<storage name>/<subresource>`; the kind lists them in `extraSubresources` for discovery and verbs.
   */
  subresourceHandlers?: ReadonlyMap<string, SubresourceHandler>;
}

/** Serves one request on a subresource; the context has passed authentication and authorization. */
export type SubresourceHandler = (ctx: RequestContext) => Promise<void>;

const ANONYMOUS_ADMIN: UserInfo = {
  username: 'system:admin',
  groups: ['system:masters', 'system:authenticated'],
};

export class ApiServer {
  private readonly deps: CrudDeps;
  private readonly discovery: DiscoveryRoutes;
  private readonly openWatches = new Set<() => void>();
  private draining = false;

  constructor(private readonly options: ApiServerOptions) {
    this.deps = { store: options.store, fields: new FieldManager() };
    this.discovery = new DiscoveryRoutes(options.registry, options.version);
  }

  /** Handles one request; `path` lets a host mount the server under a prefix. */
  handle = async (req: IncomingMessage, res: ServerResponse, path?: string): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://server');
    const effectivePath = path ?? url.pathname;
    let ctx: RequestContext | undefined;
    let user: UserInfo | undefined;
    let info: ResourceRequestInfo | undefined;
    try {
      const parsed = requestInfo(req.method ?? 'GET', effectivePath, url.searchParams);
      if (parsed.isResourceRequest) info = parsed;
      user = this.options.authenticator
        ? await this.options.authenticator.authenticate(req)
        : ANONYMOUS_ADMIN;
      this.authorize(user, parsed, url.searchParams);
      if (!parsed.isResourceRequest) {
        const route = this.options.nonResourceRoutes?.get(effectivePath);
        if (route) route(req, res);
        else if (!this.discovery.serve(req, res, effectivePath, url.searchParams))
          throw errors.pathNotFound();
        return;
      }
      ctx = this.context(req, res, parsed, url.searchParams, user);
      await this.dispatch(ctx);
    } catch (e) {
      const error = this.toApiError(e, req);
      if (ctx) ctx.code = error.code;
      writeError(res, error);
      // Refused before it ran: a denial is recorded whatever the verb (who tried what, and why not).
      if (!ctx && info && user)
        this.audit(
          req,
          user,
          info,
          error.code,
          undefined,
          error.code === 403 ? { 'authorization.fleethub.io/denied': error.message } : undefined,
        );
      // A credential that failed (a wrong, expired or spent token): recorded whatever the verb, as an attempt.
      if (!user && info && error.code === 401 && req.headers.authorization)
        this.audit(req, ANONYMOUS, info, 401, undefined, failedCredential(req.headers.authorization, error));
    } finally {
      if (ctx) this.audit(req, ctx.user, ctx.info, ctx.code, ctx);
    }
  };

  /** Ends every open watch (graceful shutdown); clients reconnect to another replica. */
  closeWatches(): void {
    this.draining = true;
    for (const close of [...this.openWatches]) close();
  }

  private toApiError(e: unknown, req: IncomingMessage): ApiError {
    if (e instanceof ApiError) return e;
    this.options.logger?.error({ err: e, method: req.method, url: req.url }, 'request failed');
    return errors.internal('the server could not complete the request; see the hub log');
  }

  private authorize(user: UserInfo, info: ReturnType<typeof requestInfo>, query: URLSearchParams): void {
    const authorizer = this.options.authorizer;
    if (!authorizer) return;
    const attrs = info.isResourceRequest
      ? resourceAttributes(user, info, info.path, {
          labelSelector: query.get('labelSelector'),
          fieldSelector: query.get('fieldSelector'),
        })
      : nonResourceAttributes(user, info.verb, info.path);
    const decision = authorizer.authorize(attrs);
    if (decision.allowed) return;
    const message = forbiddenMessage(
      user,
      {
        verb: attrs.verb,
        resourceRequest: attrs.isResourceRequest,
        apiGroup: attrs.apiGroup,
        resource: attrs.resource,
        subresource: attrs.subresource,
        name: attrs.name,
        namespace: attrs.namespace,
        path: attrs.path,
      },
      decision.reason,
    );
    throw info.isResourceRequest
      ? errors.forbidden(message, info.resource, info.group, info.name || undefined)
      : errors.forbidden(message);
  }

  private context(
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: UserInfo,
  ): RequestContext {
    const def = this.options.registry.byUrl(info.group, info.version, info.resource);
    if (!def) throw errors.pathNotFound();
    // `/api/v1/configmaps/x` (a name without a namespace) and namespaces on cluster kinds are not paths.
    if (def.namespaced && info.name && !info.namespace) throw errors.pathNotFound();
    if (!def.namespaced && info.namespace) throw errors.pathNotFound();
    if (def.namespaced && !info.namespace && info.verb !== 'list' && info.verb !== 'watch' && isStored(def))
      throw errors.pathNotFound();
    return { req, res, info, query, def, resource: resourceName(def), user, warnings: [], code: 0 };
  }

  private async dispatch(ctx: RequestContext): Promise<void> {
    const { def, info } = ctx;
    const verbs: readonly Verb[] = def.verbs ?? ALL_VERBS;
    if (info.subresource) {
      if (
        info.subresource === 'scale' &&
        (def.scale || def.extraSubresources?.some((x) => x.name === 'scale'))
      ) {
        if (!['get', 'update', 'patch'].includes(info.verb)) throw errors.methodNotAllowed();
        return serveScale(this.options.store, ctx);
      }
      const extra = def.extraSubresources?.find((s) => s.name === info.subresource);
      if (extra) {
        if (!extra.verbs.includes(info.verb as Verb)) throw errors.methodNotAllowed();
        const handler = this.options.subresourceHandlers?.get(`${ctx.resource}/${extra.name}`);
        if (handler) return handler(ctx);
        if (extra.name === 'token')
          return createToken(
            { authorizer: this.options.authorizer, tokens: this.options.tokens, store: this.options.store },
            ctx,
          );
        throw errors.pathNotFound();
      }
      if (info.subresource !== 'status' || !def.subresources?.status) throw errors.pathNotFound();
      if (!['get', 'update', 'patch'].includes(info.verb)) throw errors.methodNotAllowed();
    }
    if (!verbs.includes(info.verb)) throw errors.methodNotAllowed();
    if (!isStored(def))
      return createReview(
        { authorizer: this.options.authorizer, tokens: this.options.tokens, store: this.options.store },
        ctx,
      );
    switch (info.verb) {
      case 'get':
        return getObject(this.deps, ctx);
      case 'list':
        return listObjects(this.deps, ctx);
      case 'watch':
        if (this.draining) throw errors.serviceUnavailable('the server is shutting down');
        return watchObjects(this.options.store, ctx, {
          add: (close) => {
            this.openWatches.add(close);
            return () => this.openWatches.delete(close);
          },
        });
      case 'create':
        return createObject(this.deps, ctx);
      case 'update':
        return replaceObject(this.deps, ctx);
      case 'patch':
        return patchObject(this.deps, ctx);
      case 'delete':
        return deleteObject(this.deps, ctx);
      case 'deletecollection':
        return deleteCollection(this.deps, ctx);
    }
  }

  private audit(
    req: IncomingMessage,
    user: UserInfo,
    info: ResourceRequestInfo,
    code: number,
    ctx?: RequestContext,
    /** A failed authentication or a denial: recorded whatever the verb, with these annotations. */
    failure?: Record<string, string>,
  ): void {
    const sink = this.options.audit;
    if (!sink) return;
    if (
      !failure &&
      !shouldAudit({ verb: info.verb, apiGroup: info.group, resource: info.resource, resourceRequest: true })
    )
      return;
    sink.record({
      time: new Date().toISOString(),
      user,
      verb: info.verb,
      apiGroup: info.group,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name || (ctx?.createdName ?? ''),
      responseCode: code,
      requestURI: info.path,
      sourceIP: req.socket.remoteAddress ?? '',
      userAgent: req.headers['user-agent'] ?? '',
      ...(failure ? { annotations: failure } : {}),
    });
  }
}

const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * What an audit record says about a credential that failed: the reason, and the id part of a well-formed
 * fleethub token (never its secret part) so an operator can tell which join token was tried.
 */
function failedCredential(authorization: string, error: { message: string }): Record<string, string> {
  const id = tokenId(bearerToken(authorization) ?? '');
  const out: Record<string, string> = { 'authentication.fleethub.io/failure': error.message };
  if (id !== undefined) out['authentication.fleethub.io/token-id'] = id;
  return out;
}
