import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AdminRole, SessionInfo } from '../../../lib/api-types';
import { renderWithClient } from '../../../test/render';
import { ManagePanel } from './manage-panel';

const session: SessionInfo = {
  id: 'demo',
  messages: 3,
  stored: 3,
  updatedAt: '2026-12-04T10:00:00.000Z',
  hasSnapshot: false,
  snapshotUpTo: null,
  meta: { title: 'Demo' },
};

/** The actions the panel offers to `role`, by their button text. */
function offeredTo(role: AdminRole): string[] {
  const view = renderWithClient(
    <ManagePanel session={session} role={role} onChanged={() => {}} onDeleted={() => {}} />,
  );
  const offered = screen.getAllByRole('button').map((button) => button.textContent ?? '');
  view.unmount();
  return offered;
}

describe('the manage panel', () => {
  it('offers each role only what the server lets it do', () => {
    expect(offeredTo('viewer')).toEqual(['Export JSON', 'Export Markdown']);
    expect(offeredTo('operator')).toEqual([
      'Save',
      'Save metadata',
      'Export JSON',
      'Export Markdown',
      'Clear…',
    ]);
    expect(offeredTo('admin')).toEqual([
      'Save',
      'Save metadata',
      'Export JSON',
      'Export Markdown',
      'Clear…',
      'Delete…',
    ]);
  });
});
