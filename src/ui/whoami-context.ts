import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Whoami } from './api-types.js';

export const WhoamiContext = createContext<Whoami | null>(null);

/** Whether the caller's role grants `permission` (`write`, `admin`, `inspect`): the UI hides the rest. */
export function useCan(): (permission: 'read' | 'write' | 'admin' | 'inspect') => boolean {
  const whoami = useContext(WhoamiContext);
  return (permission) => whoami?.permissions.includes(permission) ?? false;
}
