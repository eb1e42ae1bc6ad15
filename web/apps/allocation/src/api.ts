// The allocation service's public routes (services/allocation/README.md), typed for the
// panel. The gateway leaves empty lists and zero counts out, so every reader defaults them.
import { ApiError, createHttpClient, type ClientOptions, type HttpClient } from '@hangar/api-client';

export type TargetType = 'USER' | 'TAIL';

export interface Allocation {
  addOnCodes: string[];
  expiredAddOnCodes: string[];
  targetId: string;
  targetOwnerId: string;
  targetType: TargetType;
}

export interface PoolReport {
  addOnCode: string;
  licensingMethod: string;
  bought: number;
  assigned: number;
  free: number;
  expired: number;
  isPlan: boolean;
  targetTypes: TargetType[];
}

export interface Report {
  ownerId: string;
  pools: PoolReport[];
}

export interface AllocatedUser {
  accountUuid: string;
  email: string;
  roles: string[];
  assignedAddOnCodes: string[];
  expiredAddOnCodes: string[];
}

export interface AllocatedTail {
  tailId: string;
  assignedAddOnCodes: string[];
  expiredAddOnCodes: string[];
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
}

export interface ListQuery {
  assignedAddOnCodes?: string;
  unassignedAddOnCodes?: string;
  filter?: string;
  page: number;
  size: number;
  sortDirection: 'asc' | 'desc';
}

export interface Target {
  targetType: TargetType;
  targetId: string;
  addOnCodes: string[];
}

type Raw = Record<string, unknown>;
const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

function allocation(r: Raw): Allocation {
  return {
    addOnCodes: list(r.addOnCodes),
    expiredAddOnCodes: list(r.expiredAddOnCodes),
    targetId: String(r.targetId ?? ''),
    targetOwnerId: String(r.targetOwnerId ?? ''),
    targetType: r.targetType === 'TAIL' ? 'TAIL' : 'USER',
  };
}

export function allocationApi(http: HttpClient) {
  return {
    async report(signal?: AbortSignal): Promise<Report> {
      const r = await http.request<Raw>('GET', '/account/api/subscription/allocation/report', { signal });
      const pools = Object.values((r?.addOnAllocationReports ?? {}) as Record<string, Raw>).map(
        (p): PoolReport => ({
          addOnCode: String(p.addOnCode ?? ''),
          licensingMethod: String(p.licensingMethod ?? ''),
          bought: num(p.bought),
          assigned: num(p.assigned),
          free: num(p.free),
          expired: num(p.expired),
          isPlan: p.isPlan === true,
          targetTypes: list<TargetType>(p.targetTypes),
        }),
      );
      pools.sort((a, b) => Number(b.isPlan) - Number(a.isPlan) || a.addOnCode.localeCompare(b.addOnCode));
      return { ownerId: String(r?.ownerId ?? ''), pools };
    },

    async users(q: ListQuery, signal?: AbortSignal): Promise<Page<AllocatedUser>> {
      const r = await http.request<Raw>('GET', '/account/api/users/by-allocation/', {
        signal,
        query: {
          assignedAddOnCodes: q.assignedAddOnCodes,
          unassignedAddOnCodes: q.unassignedAddOnCodes,
          userFilters: q.filter,
          page: q.page,
          size: q.size,
          sortDirection: q.sortDirection,
        },
      });
      return {
        items: list<Raw>(r?.users).map((u) => ({
          accountUuid: String(u.accountUuid ?? ''),
          email: String(u.email ?? ''),
          roles: list(u.roles),
          assignedAddOnCodes: list(u.assignedAddOnCodes),
          expiredAddOnCodes: list(u.expiredAddOnCodes),
        })),
        total: num(r?.total),
        page: num(r?.page),
        size: num(r?.size) || q.size,
      };
    },

    async tails(q: ListQuery, signal?: AbortSignal): Promise<Page<AllocatedTail>> {
      const r = await http.request<Raw>('GET', '/account/api/subscription/allocation/tails', {
        signal,
        query: {
          assignedAddOnCodes: q.assignedAddOnCodes,
          unassignedAddOnCodes: q.unassignedAddOnCodes,
          tailFilters: q.filter,
          page: q.page,
          size: q.size,
          sortDirection: q.sortDirection,
        },
      });
      return {
        items: list<Raw>(r?.tails).map((t) => ({
          tailId: String(t.tailId ?? ''),
          assignedAddOnCodes: list(t.assignedAddOnCodes),
          expiredAddOnCodes: list(t.expiredAddOnCodes),
        })),
        total: num(r?.total),
        page: num(r?.page),
        size: num(r?.size) || q.size,
      };
    },

    async allocations(kind: 'users' | 'tails', ids: string[] = [], signal?: AbortSignal): Promise<Allocation[]> {
      const r = await http.request<Raw>('GET', `/account/api/subscription/allocations/?${kind}=${encodeURIComponent(ids.join(','))}`, { signal });
      return list<Raw>(r?.allocations).map(allocation);
    },

    async assign(t: Target): Promise<Allocation> {
      const r = await http.request<Raw>('POST', '/account/api/subscription/allocation/assign', { body: t });
      return allocation((r?.allocation ?? {}) as Raw);
    },

    async unassign(t: Target): Promise<Allocation> {
      const r = await http.request<Raw>('POST', '/account/api/subscription/allocation/unassign', { body: t });
      return allocation((r?.allocation ?? {}) as Raw);
    },

    async bulk(organizationId: string, assign: Target[], unassign: Target[] = []): Promise<Allocation[]> {
      const r = await http.request<Raw>('POST', `/account/api/subscription/allocation/bulk-assign/${encodeURIComponent(organizationId)}`, {
        body: { allocations: assign, unassign },
      });
      return list<Raw>(r?.allocations).map(allocation);
    },
  };
}

export type AllocationApi = ReturnType<typeof allocationApi>;

export function createAllocationApi(options: ClientOptions = {}): AllocationApi {
  return allocationApi(createHttpClient(options));
}

/** The server's phrase for a pool too small (spec 001 §5). */
export const INSUFFICIENT = 'Insufficient addOn quantity';

/**
 * The message of a failed assignment (spec 001 §8): a 400 whose text carries the
 * insufficient-quantity phrase becomes 'Insufficient licenses for assignment.' with the
 * add-on code taken from the message; anything else shows the server's message.
 */
export function assignmentError(err: unknown): string {
  const e = err instanceof ApiError ? err : undefined;
  const text = e?.message ?? (err instanceof Error ? err.message : String(err));
  if ((e === undefined || e.status === 400) && text.includes(INSUFFICIENT)) {
    const code = /Insufficient addOn quantity(?:\s+for)?\s+([A-Za-z0-9_.-]+)/.exec(text)?.[1];
    return code ? `Insufficient licenses for assignment. ${code}` : 'Insufficient licenses for assignment.';
  }
  return text;
}

export const REPORT_ERROR = 'There was an error fetching your subscription allocations.';

/** The report's failure message (spec 001 §8): the server's own message takes precedence. */
export function reportError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.fieldErrors.length > 0) return err.fieldErrors.map((f) => f.message).join(' ');
    // A transport failure or a body without a message carries the client's own text.
    if (err.status !== 0 && !err.message.startsWith('request failed with status') && err.code !== 'internal') return err.message;
  }
  return REPORT_ERROR;
}
