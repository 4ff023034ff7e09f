// Answers to the create-only review APIs and TokenRequest: `kubectl auth can-i` (SelfSubjectAccessReview,
// SelfSubjectRulesReview), `kubectl auth whoami` (SelfSubjectReview), `kubectl create token`.
import { TokenRequestSchema } from '../../kinds/builtin/reviews.js';
import type { KindDefinition } from '../../kinds/types.js';
import { validateObject, parseFieldValidation } from '../../kinds/validation.js';
import type { Store } from '../../store/types.js';
import { errors } from '../../util/errors.js';
import { decodeObjectBody, readBody } from '../body.js';
import type { RequestContext } from '../context.js';
import { writeJson } from '../respond.js';
import type { Authorizer, TokenIssuer } from '../types.js';
import { asKubeObject } from './objects.js';
import { nonResourceAttributes, resourceAttributes } from '../authz-attributes.js';

export interface ReviewDeps {
  authorizer: Authorizer | undefined;
  tokens: TokenIssuer | undefined;
  store: Store;
}

type Attributes = {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
};

export async function createReview(deps: ReviewDeps, ctx: RequestContext): Promise<void> {
  const body = await readBody(ctx.req);
  const review = asKubeObject(decodeObjectBody(ctx.req.headers['content-type'], body), ctx.def);
  // Reviews have no name; validate the rest of the shape only.
  review.metadata.name ??= 'review';
  validateObject(ctx.def, review, parseFieldValidation(ctx.query.get('fieldValidation')));
  delete review.metadata.name;
  const user = ctx.user;
  switch (ctx.def.kind) {
    case 'SelfSubjectReview':
      review.status = {
        userInfo: {
          username: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          groups: user.groups,
          ...(user.extra ? { extra: user.extra } : {}),
        },
      };
      break;
    case 'SelfSubjectAccessReview': {
      const spec = review.spec as {
        resourceAttributes?: Attributes;
        nonResourceAttributes?: { path?: string; verb?: string };
      };
      const resource = spec.resourceAttributes;
      const nonResource = spec.nonResourceAttributes;
      if (!resource && !nonResource)
        throw errors.invalid(ctx.def.kind, ctx.def.group, '', [
          {
            reason: 'FieldValueRequired',
            message:
              'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
            field: 'spec.resourceAttributes',
          },
        ]);
      const decision = deps.authorizer
        ? deps.authorizer.authorize(
            resource
              ? resourceAttributes(user, {
                  verb: resource.verb ?? '',
                  group: resource.group ?? '',
                  version: resource.version ?? '',
                  resource: resource.resource ?? '',
                  subresource: resource.subresource ?? '',
                  namespace: resource.namespace ?? '',
                  name: resource.name ?? '',
                })
              : nonResourceAttributes(user, nonResource?.verb ?? '', nonResource?.path ?? ''),
          )
        : { allowed: true, reason: 'no authorizer configured' };
      review.status = { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
      break;
    }
    case 'SelfSubjectRulesReview': {
      const namespace = (review.spec as { namespace?: string }).namespace ?? '';
      review.status = deps.authorizer?.rulesFor
        ? deps.authorizer.rulesFor(user, namespace)
        : {
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
            nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
            incomplete: false,
          };
      break;
    }
    default:
      throw errors.methodNotAllowed();
  }
  ctx.code = 201;
  writeJson(ctx.res, 201, review);
}

const TOKEN_REQUEST: KindDefinition = {
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenRequest',
  plural: 'tokenrequests',
  singular: 'tokenrequest',
  namespaced: true,
  schema: TokenRequestSchema,
};

const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 48 * 3600;
const DEFAULT_TOKEN_SECONDS = 3600;

export async function createToken(deps: ReviewDeps, ctx: RequestContext): Promise<void> {
  if (!deps.tokens) throw errors.methodNotAllowed('this server issues no tokens');
  const body = await readBody(ctx.req);
  const request = asKubeObject(decodeObjectBody(ctx.req.headers['content-type'], body), TOKEN_REQUEST);
  request.metadata.name ??= ctx.info.name;
  validateObject(TOKEN_REQUEST, request, parseFieldValidation(ctx.query.get('fieldValidation')));
  const spec = (request.spec ?? {}) as { audiences?: string[]; expirationSeconds?: number };
  const seconds = spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  if (seconds < MIN_TOKEN_SECONDS || seconds > MAX_TOKEN_SECONDS)
    throw errors.invalid('TokenRequest', 'authentication.k8s.io', ctx.info.name, [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${seconds}: must be between ${MIN_TOKEN_SECONDS} seconds (10 minutes) and ${MAX_TOKEN_SECONDS} seconds (48 hours)`,
        field: 'spec.expirationSeconds',
      },
    ]);
  const sa = await deps.store.get('serviceaccounts', ctx.info.namespace, ctx.info.name);
  if (!sa) throw errors.notFound('serviceaccounts', '', ctx.info.name);
  const issued = await deps.tokens.issueServiceAccountToken(sa, {
    expirationSeconds: seconds,
    audiences: spec.audiences ?? [],
  });
  const response = {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: {
      name: ctx.info.name,
      namespace: ctx.info.namespace,
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    },
    spec: { audiences: spec.audiences ?? [], expirationSeconds: seconds, boundObjectReference: null },
    status: issued,
  };
  ctx.code = 201;
  writeJson(ctx.res, 201, response);
}
