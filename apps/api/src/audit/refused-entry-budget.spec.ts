import { boundedAuditParam, MAX_AUDIT_PARAM_CHARS } from './audit-bounds';
import { RefusedEntryBudget } from './refused-entry-budget';

describe('RefusedEntryBudget', () => {
  it('records an actor’s refusals up to the budget, then counts them into the next recorded one', () => {
    let now = 0;
    const budget = new RefusedEntryBudget(2, 1000, () => now);
    expect(budget.take('dash')).toEqual({ record: true, skippedBefore: 0 });
    expect(budget.take('dash')).toEqual({ record: true, skippedBefore: 0 });
    expect(budget.take('dash')).toEqual({ record: false });
    expect(budget.take('dash')).toEqual({ record: false });
    // Another actor has a budget of their own.
    expect(budget.take('other')).toEqual({ record: true, skippedBefore: 0 });
    now = 1000;
    expect(budget.take('dash')).toEqual({ record: true, skippedBefore: 2 });
    expect(budget.take('dash')).toEqual({ record: true, skippedBefore: 0 });
    expect(budget.take('dash')).toEqual({ record: false });
  });
});

describe('boundedAuditParam', () => {
  it('keeps a parameter up to the bound and cuts a longer one with a marker', () => {
    expect(boundedAuditParam(undefined)).toBeNull();
    const fits = 'a'.repeat(MAX_AUDIT_PARAM_CHARS);
    expect(boundedAuditParam(fits)).toBe(fits);
    expect(boundedAuditParam(`${fits}bcd`)).toBe(`${fits}…[3 more characters not kept]`);
  });
});
