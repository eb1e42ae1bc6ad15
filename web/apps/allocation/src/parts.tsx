import { useEffect, useState, type ReactNode } from 'react';
import type { Page, PoolReport, TargetType } from './api';
import s from './allocation.module.css';

export type Kind = 'users' | 'tails';
export interface Row {
  id: string;
  label: string;
  assigned: string[];
  expired: string[];
}
export interface Message {
  kind: 'error' | 'ok';
  text: string;
}

export const kindType: Record<Kind, TargetType> = { users: 'USER', tails: 'TAIL' };

export function rowsOf(kind: Kind, page: Page<unknown>): Row[] {
  if (kind === 'users') {
    return (page as Page<{ accountUuid: string; email: string; assignedAddOnCodes: string[]; expiredAddOnCodes: string[] }>).items.map((u) => ({
      id: u.accountUuid,
      label: u.email,
      assigned: u.assignedAddOnCodes,
      expired: u.expiredAddOnCodes,
    }));
  }
  return (page as Page<{ tailId: string; assignedAddOnCodes: string[]; expiredAddOnCodes: string[] }>).items.map((t) => ({
    id: t.tailId,
    label: t.tailId,
    assigned: t.assignedAddOnCodes,
    expired: t.expiredAddOnCodes,
  }));
}

/** The window's inner height, followed on resize. */
export function useWindowHeight(): number {
  const [h, setH] = useState(() => (typeof window === 'undefined' ? 800 : window.innerHeight));
  useEffect(() => {
    const on = () => setH(window.innerHeight);
    window.addEventListener('resize', on);
    return () => window.removeEventListener('resize', on);
  }, []);
  return h;
}

/** Every pool: bought, assigned, free and expired licences. */
export function ReportTable({ pools, nameOf = (c) => c }: { pools: PoolReport[]; nameOf?: (code: string) => string }) {
  if (pools.length === 0) return <p>Your subscription has no licences to allocate.</p>;
  return (
    <table className={s.allocReport} aria-label="Allocation report">
      <thead>
        <tr>
          <th scope="col">Licence</th>
          <th scope="col">Bought</th>
          <th scope="col">Assigned</th>
          <th scope="col">Free</th>
          <th scope="col">Expired</th>
        </tr>
      </thead>
      <tbody>
        {pools.map((p) => (
          <tr key={p.addOnCode} data-testid={`pool-${p.addOnCode}`}>
            <td title={p.licensingMethod}>{nameOf(p.addOnCode)}</td>
            <td>{p.bought}</td>
            <td>{p.assigned}</td>
            <td data-testid={`free-${p.addOnCode}`}>{p.free}</td>
            <td>{p.expired}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The panel's heading and introduction. */
export function Frame({ children }: { children: ReactNode }) {
  return (
    <section data-remote="allocation" aria-labelledby="allocation-title">
      <h1 id="allocation-title">Licence allocation</h1>
      <p>Assign your organization&apos;s licences to users and aircraft, one at a time or in bulk.</p>
      {children}
    </section>
  );
}
