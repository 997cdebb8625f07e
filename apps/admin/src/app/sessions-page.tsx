import { useCallback } from 'react';
import { RetentionPanel } from '../features/retention/components/retention-panel';
import { SessionsList } from '../features/sessions/components/sessions-list';
import { useUrlState } from '../lib/url-state';

/** `/`: the retention policy, then the sessions list, its search and position in the URL. */
export function SessionsPage() {
  const [state, navigate] = useUrlState();
  const onSearch = useCallback((q: string) => navigate({ q, shown: null }), [navigate]);
  return (
    <>
      <RetentionPanel />
      <SessionsList
        search={state.q}
        shown={state.shown}
        onSearch={onSearch}
        onShown={(shown) => navigate({ shown })}
        onOpen={(session) => navigate({ session, view: 'log' }, 'push')}
      />
    </>
  );
}
