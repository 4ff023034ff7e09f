// Who is making a request: the UserInfo every authenticator produces and the authorizer and audit log
// consume, plus the Kubernetes naming rules for ServiceAccount users and the well-known groups.

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const GROUP_AUTHENTICATED = 'system:authenticated';
export const GROUP_SERVICE_ACCOUNTS = 'system:serviceaccounts';
const SA_PREFIX = 'system:serviceaccount:';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_PREFIX}${namespace}:${name}`;
}

/** `system:serviceaccount:ns:name` → { namespace, name }; anything else → undefined. */
export function parseServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const rest = username.slice(SA_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0 || colon === rest.length - 1 || rest.indexOf(':', colon + 1) !== -1) return undefined;
  return { namespace: rest.slice(0, colon), name: rest.slice(colon + 1) };
}

/** The groups Kubernetes gives a ServiceAccount (without `system:authenticated`, which authn adds). */
export function serviceAccountGroups(namespace: string): string[] {
  return [GROUP_SERVICE_ACCOUNTS, `${GROUP_SERVICE_ACCOUNTS}:${namespace}`];
}

/** The user with `system:authenticated` added once, as every authenticated request carries it. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(GROUP_AUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, GROUP_AUTHENTICATED] };
}
