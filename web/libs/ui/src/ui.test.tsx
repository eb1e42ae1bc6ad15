import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen } from '@testing-library/react';
import {
  BANNER_SLIDE_MS,
  Button,
  CheckboxField,
  ErrorState,
  LoadingState,
  Dialog,
  NotificationBanner,
  SectionBlock,
  SelectField,
  TextField,
  isBlank,
} from './index';

describe('Button', () => {
  it.each([
    ['small', 'h-btn--small'],
    ['medium', 'h-btn--medium'],
    ['large', 'h-btn--large'],
  ] as const)('%s size has its class', (size, cls) => {
    render(<Button size={size}>Go</Button>);
    expect(screen.getByRole('button', { name: 'Go' }).className).toContain(cls);
  });
  it('is type=button by default so it never submits a form by accident', () => {
    render(<Button>Go</Button>);
    expect(screen.getByRole('button')).toHaveProperty('type', 'button');
  });
  it.each([
    ['small', '24px'],
    ['medium', '32px'],
    ['large', '40px'],
  ] as const)('%s is %s high (the module stylesheet applies)', (size, height) => {
    render(<Button size={size}>Go</Button>);
    expect(getComputedStyle(screen.getByRole('button', { name: 'Go' })).height).toBe(height);
  });
});

describe('SectionBlock', () => {
  it('collapses and expands', () => {
    render(
      <SectionBlock id="plans" title="Plans">
        <p>body</p>
      </SectionBlock>,
    );
    const toggle = screen.getByRole('button', { name: /Plans/ });
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('body').parentElement?.hidden).toBe(false);
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.getByText('body').parentElement?.hidden).toBe(true);
    fireEvent.click(toggle);
    expect(screen.getByText('body').parentElement?.hidden).toBe(false);
  });
  it('starts collapsed when asked and shows its note', () => {
    render(
      <SectionBlock id="vfr" title="VFR packages" defaultExpanded={false} note="Prices do not include VAT">
        <p>body</p>
      </SectionBlock>,
    );
    expect(screen.getByRole('button', { name: /VFR packages/ }).getAttribute('aria-expanded')).toBe('false');
    expect(screen.getByText('Prices do not include VAT')).toBeTruthy();
  });
  // Issue 31 (/buy's blocking time): /buy's five collapsed sections were rendered hidden, half
  // the page's 1,136 elements, all in its first render.
  it('renders a collapsed body the first time it opens, and keeps it (what was typed) after', () => {
    let renders = 0;
    function Body() {
      renders += 1;
      return <input aria-label="Customer number" />;
    }
    render(
      <SectionBlock id="jeppesen" title="Jeppesen" defaultExpanded={false}>
        <Body />
      </SectionBlock>,
    );
    const toggle = screen.getByRole('button', { name: /Jeppesen/ });
    expect(renders).toBe(0);
    expect(screen.queryByLabelText('Customer number')).toBeNull();
    expect(document.getElementById(toggle.getAttribute('aria-controls') ?? '')?.hidden).toBe(true);
    fireEvent.click(toggle);
    fireEvent.change(screen.getByLabelText('Customer number'), { target: { value: '1234' } });
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect((screen.getByLabelText('Customer number') as HTMLInputElement).value).toBe('1234');
  });
});

describe('Dialog', () => {
  it('renders a labelled dialog and closes on Escape (the dialog\'s cancel)', () => {
    const onClose = vi.fn();
    render(
      <Dialog open title="Currency Not Allowed" onClose={onClose}>
        Sorry, that currency is not allowed for your account.
      </Dialog>,
    );
    const dialog = screen.getByRole('dialog', { name: 'Currency Not Allowed', hidden: true });
    fireEvent(dialog, new Event('cancel', { cancelable: true }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });
  it('passes other keys on (arrow-key stepping)', () => {
    const onKeyDown = vi.fn();
    render(
      <Dialog open title="Info" onClose={() => undefined} onKeyDown={onKeyDown}>
        x
      </Dialog>,
    );
    fireEvent.keyDown(screen.getByRole('dialog', { name: 'Info', hidden: true }), { key: 'ArrowRight' });
    expect(onKeyDown).toHaveBeenCalled();
  });
  it('keeps Tab inside: from the last control to the first, Shift+Tab back (issue 45)', () => {
    render(
      <Dialog open title="Info" onClose={() => undefined} footer={<button type="button">Next</button>}>
        text
      </Dialog>,
    );
    const close = screen.getByRole('button', { name: 'Close dialog', hidden: true });
    const next = screen.getByRole('button', { name: 'Next', hidden: true });
    next.focus();
    fireEvent.keyDown(next, { key: 'Tab' });
    expect(document.activeElement).toBe(close);
    fireEvent.keyDown(close, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(next);
  });
  it('renders nothing when closed', () => {
    render(
      <Dialog open={false} title="Hidden" onClose={() => undefined}>
        x
      </Dialog>,
    );
    expect(screen.queryByRole('dialog', { hidden: true })).toBeNull();
  });
});

describe('NotificationBanner', () => {
  it('slides for 300 ms before it is gone', () => {
    vi.useFakeTimers();
    const onClose = vi.fn();
    render(<NotificationBanner onClose={onClose}>Your legacy plan was replaced.</NotificationBanner>);
    fireEvent.click(screen.getByRole('button', { name: 'Close notification' }));
    expect(screen.getByRole('status').className).toContain('h-banner--closing');
    act(() => vi.advanceTimersByTime(BANNER_SLIDE_MS - 1));
    expect(screen.queryByRole('status')).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByRole('status')).toBeNull();
    expect(onClose).toHaveBeenCalled();
    vi.useRealTimers();
  });
  it('has no close button when not closable', () => {
    render(<NotificationBanner>note</NotificationBanner>);
    expect(screen.queryByRole('button')).toBeNull();
  });
});

describe('fields accept error lists', () => {
  it('a non-empty list marks the text field errored', () => {
    render(<TextField label="Email Address" errors={['Please enter your email address.']} />);
    const input = screen.getByLabelText('Email Address');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Please enter your email address.')).toBeTruthy();
  });
  it('an empty list is not an error', () => {
    render(<TextField label="Email Address" errors={[]} />);
    expect(screen.getByLabelText('Email Address').getAttribute('aria-invalid')).toBeNull();
  });
  it('select and checkbox too', () => {
    render(
      <>
        <SelectField label="Country" options={[{ value: 'US', label: 'United States' }]} errors={['Please select a country']} />
        <CheckboxField label="I agree" errors={['please confirm']} />
      </>,
    );
    expect(screen.getByLabelText('Country').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('I agree').getAttribute('aria-invalid')).toBe('true');
  });
  it('isBlank trims', () => {
    expect(isBlank('  ')).toBe(true);
    expect(isBlank(undefined)).toBe(true);
    expect(isBlank(' a ')).toBe(false);
  });
});

describe('states', () => {
  it('loading is announced', () => {
    render(<LoadingState label="Loading plans…" />);
    expect(screen.getByRole('status').textContent).toContain('Loading plans…');
  });
  it('error offers retry', () => {
    const retry = vi.fn();
    render(<ErrorState message="There was a problem connecting." onRetry={retry} />);
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(retry).toHaveBeenCalled();
  });
});

