// Deleting an object that may already be gone — another replica or an earlier attempt removed it — where
// that outcome is the one wanted: a 404 is success, any other error is the caller's.
import { isApiError } from '../util/errors.js';
import type { Store } from './types.js';

/** Deletes (or marks for deletion) the object; false when it was not there. */
export async function deleteIfPresent(
  store: Pick<Store, 'delete'>,
  resource: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  try {
    await store.delete(resource, namespace, name);
    return true;
  } catch (e) {
    if (isApiError(e) && e.code === 404) return false;
    throw e;
  }
}
