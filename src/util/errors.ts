// Typed API errors: each carries an HTTP code, a Kubernetes `reason` (the machine code) and a human message,
// and renders once, at the edge, as a Kubernetes `Status` object.

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error a client caused or must know about; becomes a `Status` response with `code`. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

/** `configmaps` or `deployments.apps`: how Kubernetes names a resource in messages. */
export function qualifiedResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

function resourceDetails(resource: string, group: string, name: string): StatusDetails {
  const details: StatusDetails = { name, kind: resource };
  if (group) details.group = group;
  return details;
}

export const errors = {
  notFound(resource: string, group: string, name: string): ApiError {
    return new ApiError(
      404,
      'NotFound',
      `${qualifiedResource(resource, group)} "${name}" not found`,
      resourceDetails(resource, group, name),
    );
  },
  pathNotFound(): ApiError {
    return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  },
  alreadyExists(resource: string, group: string, name: string): ApiError {
    return new ApiError(
      409,
      'AlreadyExists',
      `${qualifiedResource(resource, group)} "${name}" already exists`,
      resourceDetails(resource, group, name),
    );
  },
  conflict(resource: string, group: string, name: string, why?: string): ApiError {
    return new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${
        why ?? 'the object has been modified; please apply your changes to the latest version and try again'
      }`,
      resourceDetails(resource, group, name),
    );
  },
  /** 422 naming each offending field, e.g. `ConfigMap "x" is invalid: metadata.name: Invalid value: ...`. */
  invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
    const summary = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join(', ');
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    const details: StatusDetails = { name, kind, causes };
    if (group) details.group = group;
    return new ApiError(
      422,
      'Invalid',
      `${qualifiedKind} "${name}" is invalid: ${causes.length > 1 ? `[${summary}]` : summary}`,
      details,
    );
  },
  badRequest(message: string, causes?: StatusCause[]): ApiError {
    return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
  },
  gone(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  },
  unauthorized(message = 'Unauthorized'): ApiError {
    return new ApiError(401, 'Unauthorized', message);
  },
  forbidden(message: string, resource?: string, group?: string, name?: string): ApiError {
    const details: StatusDetails = {};
    if (resource) details.kind = resource;
    if (group) details.group = group;
    if (name) details.name = name;
    return new ApiError(403, 'Forbidden', message, details);
  },
  methodNotAllowed(message = 'the server does not allow this method on the requested resource'): ApiError {
    return new ApiError(405, 'MethodNotAllowed', message, {});
  },
  unsupportedMediaType(contentType: string, accepted: string[]): ApiError {
    return new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] },
    );
  },
  notAcceptable(message: string): ApiError {
    return new ApiError(406, 'NotAcceptable', message);
  },
  tooLarge(limitBytes: number): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`);
  },
  tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
    return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds });
  },
  internal(message: string): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
  },
  serviceUnavailable(message: string): ApiError {
    return new ApiError(503, 'ServiceUnavailable', message);
  },
};

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
