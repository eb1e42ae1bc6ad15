import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { WireAllocation } from '@hangar/api-client';
import { allocationsChoice, ExpiredAllocationsModal } from './Modals';

afterEach(cleanup);

const tail: WireAllocation = { targetType: 'TAIL', targetId: 'N412AC', targetOwnerId: 'o1', addOnCodes: ['runway_tp_pilatus'] };
const users: WireAllocation = { targetType: 'USER', targetId: 'o1', targetOwnerId: 'o1', addOnCodes: ['business_pro'], assigned: 4 };

// Issue 42 item 6: lowering a users' pool below its users listed it as an aircraft ("o1:
// business_pro" under "Some of your aircraft allocations"), and "Keep them" kept nothing.
describe('expired allocations modal', () => {
  it('names users, not aircraft, for a users pool', () => {
    render(<ExpiredAllocationsModal allocations={[users]} onChoose={() => undefined} />);
    const modal = screen.getByTestId('allocations-modal');
    expect(modal.textContent).toContain('Some of your users lose their licences with this change');
    expect(modal.textContent).toContain('business_pro: 4 users hold a licence');
    expect(modal.textContent).not.toMatch(/aircraft/i);
    expect(modal.textContent).not.toContain('o1');
  });

  it('keeps the aircraft wording for tails, and lists both kinds apart', () => {
    render(<ExpiredAllocationsModal allocations={[tail, users]} onChoose={() => undefined} />);
    const modal = screen.getByTestId('allocations-modal');
    expect(modal.textContent).toContain('N412AC: runway_tp_pilatus');
    expect(modal.textContent).toContain('Some of your aircraft allocations end with this change');
    expect(modal.textContent).toContain('Some of your users lose their licences with this change');
  });

  it('answers the choice', () => {
    const onChoose = vi.fn();
    render(<ExpiredAllocationsModal allocations={[users]} onChoose={onChoose} />);
    fireEvent.click(screen.getByRole('button', { name: 'Keep them' }));
    fireEvent.click(screen.getByRole('button', { name: 'Let them end' }));
    expect(onChoose.mock.calls).toEqual([[true], [false]]);
  });
});

describe('allocationsChoice', () => {
  it('keeps the users licences by buying one for each user', () => {
    expect(allocationsChoice([users], true, '2')).toEqual({ keepExpiredAllocations: true, expiredAllocations: undefined, quantity: '4' });
  });
  it('keeps a larger quantity the buyer already chose', () => {
    expect(allocationsChoice([users], true, '6')).toEqual({ keepExpiredAllocations: true, expiredAllocations: undefined });
  });
  it('keeps aircraft by keeping their add-ons, the quantity untouched', () => {
    expect(allocationsChoice([tail], true, '2')).toEqual({ keepExpiredAllocations: true, expiredAllocations: undefined });
  });
  it('lets every entry end by echoing them', () => {
    expect(allocationsChoice([tail, users], false, '2')).toEqual({ keepExpiredAllocations: false, expiredAllocations: [tail, users] });
  });
});
