import { useCallback, useState } from 'react';
import { EraseResource } from '../features/resources/components/erase-resource';
import { RetentionPanel } from '../features/retention/components/retention-panel';
import { SessionsList } from '../features/sessions/components/sessions-list';
import { useUrlState } from '../lib/url-state';

/**
 * `/`: the retention policy, then the sessions list, its search and position in the URL; a
 * resource filter (kept on this page only) with the "Erase resource" action for the resource shown.
 */
export function SessionsPage() {
  const [state, navigate] = useUrlState();
  const [resource, setResource] = useState('');
  const onSearch = useCallback((q: string) => navigate({ q, shown: null }), [navigate]);
  return (
    <>
      <RetentionPanel />
      <SessionsList
        search={state.q}
        shown={state.shown}
        resource={resource}
        onResource={setResource}
        aside={resource ? <EraseResource resource={resource} /> : null}
        onSearch={onSearch}
        onShown={(shown) => navigate({ shown })}
        onOpen={(session) => navigate({ session, view: 'log' }, 'push')}
      />
    </>
  );
}
