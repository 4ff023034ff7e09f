// The API server's seams: who the caller is (authentication), whether they may (authorization), what
// is recorded (audit), and the pluggable pieces a host process (hub or simulator) provides.
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '../store/types.js';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface Authenticator {
  /** Returns the caller or throws a 401 ApiError. */
  authenticate(req: IncomingMessage): Promise<UserInfo>;
}

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /**
   * The request's `labelSelector` / `fieldSelector` query values (list and watch), as kube-apiserver 1.31+
   * passes selectors to authorizers; the agent authorizer allows some lists only with a narrowing selector.
   */
  labelSelector?: string;
  fieldSelector?: string;
}

export interface Decision {
  allowed: boolean;
  reason?: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Decision;
  /** For SelfSubjectRulesReview: what the user may do in a namespace. */
  rulesFor?(
    user: UserInfo,
    namespace: string,
  ): { resourceRules: unknown[]; nonResourceRules: unknown[]; incomplete: boolean };
}

export interface AuditEntry {
  time: string;
  user: UserInfo;
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  responseCode: number;
  requestURI: string;
  sourceIP: string;
  userAgent: string;
  /** Why, where the request alone does not say (e.g. which token failed to authenticate). */
  annotations?: Record<string, string>;
}

export interface AuditSink {
  record(entry: AuditEntry): void;
}

export interface TokenIssuer {
  /** Issues a token bound to `serviceAccount`; the plaintext is returned once and never stored. */
  issueServiceAccountToken(
    serviceAccount: KubeObject,
    options: { expirationSeconds: number; audiences: string[] },
  ): Promise<{ token: string; expirationTimestamp: string }>;
}

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
}
