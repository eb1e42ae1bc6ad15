import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextAdvanceDelay, showsHomeVideo, stepSlide, stickyClasses, videoVisible } from './behaviour';
import { Slider } from './widgets';

describe('marketing rules', () => {
  it('sticky-ready between -10 and -99, sticky-show from -60', () => {
    expect(stickyClasses(0)).toEqual({ ready: false, show: false });
    expect(stickyClasses(-10)).toEqual({ ready: true, show: false });
    expect(stickyClasses(-60)).toEqual({ ready: true, show: true });
    expect(stickyClasses(-99)).toEqual({ ready: true, show: true });
    expect(stickyClasses(-100)).toEqual({ ready: false, show: true });
  });

  it('shows the home video only on the home page from 1025 px', () => {
    expect(showsHomeVideo('/', 1025)).toBe(true);
    expect(showsHomeVideo('/', 1024)).toBe(false);
    expect(showsHomeVideo('/pricing', 1400)).toBe(false);
  });

  it('fades the video in after 1 % and out at 98 %', () => {
    expect(videoVisible(0.5, 100)).toBe(false);
    expect(videoVisible(1.5, 100)).toBe(true);
    expect(videoVisible(97.9, 100)).toBe(true);
    expect(videoVisible(98, 100)).toBe(false);
    expect(videoVisible(1, NaN)).toBe(false);
  });

  it('wraps slides and pauses 4 s after a manual step', () => {
    expect(stepSlide(2, 1, 3)).toBe(0);
    expect(stepSlide(0, -1, 3)).toBe(2);
    expect(nextAdvanceDelay(undefined, 0)).toBe(5000);
    expect(nextAdvanceDelay(1000, 1000)).toBe(9000);
    expect(nextAdvanceDelay(1000, 6000)).toBe(5000);
  });
});

describe('Slider', () => {
  afterEach(() => vi.useRealTimers());
  const slides = [
    { title: 'One', text: '1' },
    { title: 'Two', text: '2' },
    { title: 'Three', text: '3' },
  ];

  it('advances every 5 s and waits 4 s more after an arrow click', () => {
    vi.useFakeTimers();
    render(<Slider slides={slides} label="Highlights" />);
    expect(screen.getByRole('heading').textContent).toBe('One');
    act(() => vi.advanceTimersByTime(5000));
    expect(screen.getByRole('heading').textContent).toBe('Two');
    fireEvent.click(screen.getByRole('button', { name: 'Next slide' }));
    // The click moved it to Three and hovering/focus is not involved (click without focus in jsdom).
    fireEvent.blur(screen.getByRole('button', { name: 'Next slide' }));
    expect(screen.getByRole('heading').textContent).toBe('Three');
    act(() => vi.advanceTimersByTime(8900));
    expect(screen.getByRole('heading').textContent).toBe('Three');
    act(() => vi.advanceTimersByTime(200));
    expect(screen.getByRole('heading').textContent).toBe('One');
  });
});
