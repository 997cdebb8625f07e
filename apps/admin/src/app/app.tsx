import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useRef, useState } from 'react';
import { AUDIT_ROUTE } from '../features/audit/api/get-audit';
import { AuditLog } from '../features/audit/components/audit-log';
import { SignIn } from '../features/auth/components/sign-in';
import { storeToken, storedToken, takeTokenFromUrl } from '../features/auth/token-storage';
import { useInfo } from '../features/server/api/get-info';
import { AppHeader } from '../features/server/components/app-header';
import { setTokenSource } from '../lib/api-client';
import { mayCall, signedInRole, useRoleTable } from '../lib/roles';
import { useUrlState } from '../lib/url-state';
import { seedFirstRows, type FirstRowsData } from './first-rows-data';
import { createQueryClient } from './query-client';
import { loadedSessionPage, loadSessionPage } from './session-page-loader';
import { SessionsPage } from './sessions-page';

// The session view is its own chunk: the list's first load does not wait for its code.
const LazySessionPage = lazy(loadSessionPage);

const REFUSED =
  'The server refused the admin token (wrong, or changed since you signed in). Sign in again.';

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const [state, navigate] = useUrlState();
  const SessionPage = loadedSessionPage();
  const info = useInfo();
  const roles = useRoleTable();
  const mayReadAudit =
    info.data !== undefined && mayCall(roles.data, signedInRole(info.data), AUDIT_ROUTE);
  return (
    <div className="app">
      <AppHeader
        onHome={() => navigate({ session: null, page: 'sessions' }, 'push')}
        onAuditLog={
          mayReadAudit ? () => navigate({ session: null, page: 'audit' }, 'push') : undefined
        }
        onSignOut={onSignOut}
      />
      <main className="app-main">
        {state.session && SessionPage ? (
          <SessionPage key={state.session} sessionId={state.session} />
        ) : state.session ? (
          <Suspense fallback={<p className="muted">Loading the session view…</p>}>
            <LazySessionPage key={state.session} sessionId={state.session} />
          </Suspense>
        ) : state.page === 'audit' ? (
          <AuditLog onOpen={(session) => navigate({ session, view: 'log' }, 'push')} />
        ) : (
          <SessionsPage />
        )}
      </main>
    </div>
  );
}

/**
 * The dashboard: sign-in until the tab holds a token the server accepts, then the pages.
 * @param firstRows the page the early rows were drawn from: the first render shows it.
 */
export function App({ firstRows = null }: { firstRows?: FirstRowsData | null }) {
  const [token, setToken] = useState<string | null>(() => takeTokenFromUrl() ?? storedToken());
  const [notice, setNotice] = useState<string | null>(null);
  const tokenRef = useRef(token);
  tokenRef.current = token;
  setTokenSource(() => tokenRef.current);

  const signOut = useCallback((reason: string | null) => {
    storeToken(null);
    tokenRef.current = null;
    setToken(null);
    setNotice(reason);
  }, []);
  const client = useMemo(() => {
    const created = createQueryClient(() => signOut(REFUSED));
    seedFirstRows(created, firstRows);
    return created;
  }, [signOut, firstRows]);

  if (!token) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(value) => {
          storeToken(value);
          tokenRef.current = value;
          client.clear();
          setNotice(null);
          setToken(value);
        }}
      />
    );
  }
  return (
    <QueryClientProvider client={client}>
      <Shell
        onSignOut={() => {
          client.clear();
          signOut(null);
        }}
      />
    </QueryClientProvider>
  );
}
