// The organization's licence allocation panel (spec 001 §1, §2, §3 Allocation, §8): the
// users and aircraft lists with filters, sorting and paging; assigning and unassigning one
// at a time and in bulk; the report of every pool; and the sidebar with the cart (what is
// selected) over the products (what was bought).
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '@hangar/api-client';
import { Button, ErrorState, LoadingState, SelectField, TextField, cx, ui } from '@hangar/ui';
import {
  assignmentError,
  reportError,
  type AllocationApi,
  type ListQuery,
  type Page,
  type Report,
  type Target,
} from './api';
import { css, sectionHeights } from './sidebar';
import { Frame, kindType, ReportTable, rowsOf, useWindowHeight, type Kind, type Message } from './parts';
import s from './allocation.module.css';

export function AllocationPanel({ api }: { api: AllocationApi }) {
  const [reload, setReload] = useState(0);
  const report = useQuery<Report, ApiError>({ queryKey: ['allocation-report', reload], queryFn: ({ signal }) => api.report(signal) });
  // The licences' names (the catalogue's titles): a code is shown only while they are not in.
  const names = useQuery({ queryKey: ['allocation-names'], queryFn: ({ signal }) => api.names(signal), staleTime: Infinity, retry: 1 });
  const nameOf = (code: string) => names.data?.[code] ?? code;
  const [kind, setKind] = useState<Kind>('users');
  const [query, setQuery] = useState<Record<Kind, ListQuery>>({
    users: { page: 0, size: 10, sortDirection: 'asc' },
    tails: { page: 0, size: 10, sortDirection: 'asc' },
  });
  const q = query[kind];
  const listing = useQuery<Page<unknown>, ApiError>({
    queryKey: ['allocation-list', kind, q, reload, report.isSuccess],
    queryFn: ({ signal }) => (kind === 'users' ? api.users(q, signal) : api.tails(q, signal)),
    // While the list reloads (after an assignment, or once the licence pools are in) it keeps
    // the rows it showed: the table does not empty and refill under the owner's pointer.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === kind ? previous : undefined),
  });
  const [selected, setSelected] = useState<Record<Kind, string[]>>({ users: [], tails: [] });
  const [message, setMessage] = useState<Message | null>(null);
  const [busy, setBusy] = useState(false);
  const [showCart, setShowCart] = useState(true);
  const [showProduct, setShowProduct] = useState(true);
  const [bulkCode, setBulkCode] = useState('');
  const [newTail, setNewTail] = useState('');
  const [rowCode, setRowCode] = useState<Record<string, string>>({});
  const panel = useRef<HTMLDivElement>(null);
  const [panelHeight, setPanelHeight] = useState(800);
  const windowHeight = useWindowHeight();
  useLayoutEffect(() => {
    const el = panel.current;
    if (!el) return;
    setPanelHeight(el.getBoundingClientRect().height || 800);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setPanelHeight(el.getBoundingClientRect().height || 800));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const pools = report.isSuccess ? report.data.pools : [];
  const poolsFor = (k: Kind) => pools.filter((p) => p.targetTypes.includes(kindType[k]));
  const setQ = (patch: Partial<ListQuery>) => setQuery((all) => ({ ...all, [kind]: { ...all[kind], page: 0, ...patch } }));

  const run = useCallback(
    async (what: () => Promise<unknown>, ok: string) => {
      setBusy(true);
      setMessage(null);
      try {
        await what();
        setMessage({ kind: 'ok', text: ok });
        setReload((n) => n + 1);
      } catch (err) {
        setMessage({ kind: 'error', text: assignmentError(err) });
      } finally {
        setBusy(false);
      }
    },
    [],
  );

  if (report.isPending && reload === 0) {
    return (
      <Frame>
        <LoadingState label="Loading your licences…" />
      </Frame>
    );
  }
  if (report.isError) {
    const e = report.error;
    const text = e instanceof ApiError && e.status === 401 ? 'Log in to allocate your organization’s licences.' : reportError(e);
    return (
      <Frame>
        <ErrorState message={<span data-testid="allocation-error">{text}</span>} onRetry={() => void report.refetch()} />
      </Frame>
    );
  }
  const orgId = report.isSuccess ? report.data.ownerId : '';
  const current = listing.data;
  const rows = current ? rowsOf(kind, current) : [];
  const total = current ? current.total : 0;
  const pages = Math.max(Math.ceil(total / q.size), 1);
  const sel = selected[kind];
  const toggle = (id: string) =>
    setSelected((s) => ({ ...s, [kind]: s[kind].includes(id) ? s[kind].filter((x) => x !== id) : [...s[kind], id] }));
  const label = (id: string) => rows.find((r) => r.id === id)?.label ?? id;
  const target = (id: string, codes: string[]): Target => ({ targetType: kindType[kind], targetId: id, addOnCodes: codes });
  const heights = sectionHeights({ showCart: showCart && sel.length > 0, showProduct, success: false, windowHeight, allocationPanelHeight: panelHeight });
  const codeOptions = (k: Kind) => poolsFor(k).map((p) => ({ value: p.addOnCode, label: `${nameOf(p.addOnCode)} (${p.free} free)` }));
  // A new aircraft takes a licence of a pool with a free one (the first pool, full, answered
  // 'Insufficient licenses'); the buyer may pick another.
  const newCode = rowCode['__new'] || (poolsFor('tails').find((p) => p.free > 0) ?? poolsFor('tails')[0])?.addOnCode || '';
  const newPool = poolsFor('tails').find((p) => p.addOnCode === newCode);
  const bulk = bulkCode && poolsFor(kind).some((p) => p.addOnCode === bulkCode) ? bulkCode : (poolsFor(kind)[0]?.addOnCode ?? '');

  return (
    <Frame>
      {message ? (
        <div
          className={cx(s.allocMsg, message.kind === 'error' ? s.allocMsgError : s.allocMsgOk)}
          role={message.kind === 'error' ? 'alert' : 'status'}
          data-testid={message.kind === 'error' ? 'allocation-error' : 'allocation-ok'}
        >
          {message.text}
        </div>
      ) : null}
      <div className={s.alloc} ref={panel}>
        <div>
          <div className={s.allocTabs} role="tablist" aria-label="Assign to">
            {(['users', 'tails'] as Kind[]).map((k) => (
              <Button key={k} role="tab" variant="secondary" aria-selected={kind === k} onClick={() => setKind(k)}>
                {k === 'users' ? 'Users' : 'Aircraft'}
              </Button>
            ))}
          </div>
          <div className={s.allocFilters}>
            <TextField
              label={kind === 'users' ? 'Filter by e-mail' : 'Filter by tail number'}
              value={q.filter ?? ''}
              onChange={(e) => setQ({ filter: e.target.value })}
            />
            <SelectField
              label="Licence"
              value={q.assignedAddOnCodes ?? q.unassignedAddOnCodes ?? ''}
              options={[{ value: '', label: 'Any' }, ...poolsFor(kind).map((p) => ({ value: p.addOnCode, label: nameOf(p.addOnCode) }))]}
              onChange={(e) => {
                const v = e.target.value || undefined;
                setQ(q.unassignedAddOnCodes !== undefined ? { unassignedAddOnCodes: v, assignedAddOnCodes: undefined } : { assignedAddOnCodes: v, unassignedAddOnCodes: undefined });
              }}
            />
            <SelectField
              label="Holding it"
              value={q.unassignedAddOnCodes !== undefined ? 'without' : 'with'}
              options={[
                { value: 'with', label: 'Assigned' },
                { value: 'without', label: 'Not assigned' },
              ]}
              onChange={(e) => {
                const code = q.assignedAddOnCodes ?? q.unassignedAddOnCodes;
                setQ(e.target.value === 'without' ? { unassignedAddOnCodes: code ?? '', assignedAddOnCodes: undefined } : { assignedAddOnCodes: code || undefined, unassignedAddOnCodes: undefined });
              }}
            />
            <SelectField
              label="Per page"
              value={String(q.size)}
              options={[10, 20, 50].map((n) => ({ value: String(n), label: String(n) }))}
              onChange={(e) => setQ({ size: Number(e.target.value) })}
            />
          </div>
          {kind === 'tails' ? (
            <div className={s.allocFilters}>
              <TextField label="Tail number" value={newTail} onChange={(e) => setNewTail(e.target.value)} placeholder="N123AB" />
              <SelectField label="Licence for the new aircraft" value={newCode} options={codeOptions('tails')} onChange={(e) => setRowCode((r) => ({ ...r, __new: e.target.value }))} />
              <Button
                disabled={busy || newTail.trim() === '' || !newPool || newPool.free <= 0}
                onClick={() => {
                  if (newCode) void run(() => api.assign(target(newTail.trim(), [newCode])), `Assigned ${nameOf(newCode)} to ${newTail.trim().toUpperCase()}.`).then(() => setNewTail(''));
                }}
              >
                Add aircraft
              </Button>
              {newPool && newPool.free <= 0 ? (
                <p className={s.allocNote} data-testid="new-tail-note">
                  No {nameOf(newPool.addOnCode)} licence is free: unassign one from an aircraft first.
                </p>
              ) : null}
            </div>
          ) : null}
          {listing.isError ? (
            <ErrorState message={reportError(listing.error)} onRetry={() => void listing.refetch()} />
          ) : (
            <table className={s.allocTable} aria-label={kind === 'users' ? 'Users' : 'Aircraft'} aria-busy={listing.isFetching}>
              <thead>
                <tr>
                  <th scope="col">
                    <span className={ui.hVisuallyHidden}>Select</span>
                  </th>
                  <th scope="col" aria-sort={q.sortDirection === 'asc' ? 'ascending' : 'descending'}>
                    <Button variant="link" onClick={() => setQ({ sortDirection: q.sortDirection === 'asc' ? 'desc' : 'asc', page: q.page })}>
                      {kind === 'users' ? 'E-mail' : 'Tail'} {q.sortDirection === 'asc' ? '▲' : '▼'}
                    </Button>
                  </th>
                  <th scope="col">Licences</th>
                  <th scope="col">Assign</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id} data-testid={`row-${r.label}`}>
                    <td>
                      <input type="checkbox" aria-label={`Select ${r.label}`} checked={sel.includes(r.id)} onChange={() => toggle(r.id)} />
                    </td>
                    <td>{r.label}</td>
                    <td data-testid={`licences-${r.label}`}>
                      {r.assigned.map((c) => (
                        <span className={s.allocChip} key={c}>
                          {nameOf(c)}
                          <Button
                            size="small"
                            variant="link"
                            aria-label={`Unassign ${nameOf(c)} from ${r.label}`}
                            disabled={busy}
                            onClick={() => void run(() => api.unassign(target(r.id, [c])), `Unassigned ${nameOf(c)} from ${r.label}.`)}
                          >
                            ×
                          </Button>
                        </span>
                      ))}
                      {r.expired.map((c) => (
                        <span className={`${s.allocChip} ${s.allocChipExpired}`} key={`x-${c}`} title="Expired allocation">
                          {nameOf(c)} (expired)
                        </span>
                      ))}
                    </td>
                    <td>
                      <div className={s.allocRowAssign}>
                        <select
                          aria-label={`Licence for ${r.label}`}
                          value={rowCode[r.id] ?? ''}
                          onChange={(e) => setRowCode((m) => ({ ...m, [r.id]: e.target.value }))}
                        >
                          <option value="">Choose…</option>
                          {codeOptions(kind)
                            .filter((o) => !r.assigned.includes(o.value))
                            .map((o) => (
                              <option key={o.value} value={o.value}>
                                {o.label}
                              </option>
                            ))}
                        </select>
                        <Button
                          size="small"
                          disabled={busy || !rowCode[r.id]}
                          aria-label={`Assign to ${r.label}`}
                          onClick={() => {
                            const c = rowCode[r.id] ?? '';
                            void run(() => api.assign(target(r.id, [c])), `Assigned ${nameOf(c)} to ${r.label}.`).then(() =>
                              setRowCode((m) => ({ ...m, [r.id]: '' })),
                            );
                          }}
                        >
                          Assign
                        </Button>
                      </div>
                    </td>
                  </tr>
                ))}
                {listing.isSuccess && rows.length === 0 ? (
                  <tr>
                    <td colSpan={4}>{kind === 'users' ? 'No users match.' : 'No aircraft match.'}</td>
                  </tr>
                ) : null}
              </tbody>
            </table>
          )}
          <div className={s.allocPager}>
            <Button variant="secondary" disabled={q.page <= 0} onClick={() => setQ({ page: q.page - 1 })}>
              Previous
            </Button>
            <span>
              Page {q.page + 1} of {pages} ({total} {kind === 'users' ? 'users' : 'aircraft'})
            </span>
            <Button variant="secondary" disabled={q.page + 1 >= pages} onClick={() => setQ({ page: q.page + 1 })}>
              Next
            </Button>
          </div>
        </div>

        <aside className={s.allocSide} aria-label="Allocation sidebar">
          <section aria-labelledby="alloc-cart-title" style={{ height: css(heights.cart) }} data-testid="sidebar-cart">
            <h2 id="alloc-cart-title">
              Selected ({sel.length})
              <Button size="small" variant="link" aria-expanded={showCart} onClick={() => setShowCart((v) => !v)}>
                {showCart ? 'Hide' : 'Show'}
              </Button>
            </h2>
            {showCart && sel.length > 0 ? (
              <div className={s.allocSideBody}>
                <ul>
                  {sel.map((id) => (
                    <li key={id}>{label(id)}</li>
                  ))}
                </ul>
                <SelectField
                  label="Licence to assign"
                  value={bulk}
                  options={codeOptions(kind)}
                  onChange={(e) => setBulkCode(e.target.value)}
                />
                <div className={s.allocRowAssign}>
                  <Button
                    disabled={busy || !bulk}
                    onClick={() =>
                      void run(() => api.bulk(orgId, sel.map((id) => target(id, [bulk]))), `Assigned ${nameOf(bulk)} to ${sel.length} ${kind === 'users' ? 'users' : 'aircraft'}.`)
                    }
                  >
                    Assign to selected
                  </Button>
                  <Button
                    variant="secondary"
                    disabled={busy || !bulk}
                    onClick={() =>
                      void run(() => api.bulk(orgId, [], sel.map((id) => target(id, [bulk]))), `Unassigned ${nameOf(bulk)} from ${sel.length} ${kind === 'users' ? 'users' : 'aircraft'}.`)
                    }
                  >
                    Unassign from selected
                  </Button>
                </div>
                <Button variant="link" onClick={() => setSelected((s) => ({ ...s, [kind]: [] }))}>
                  Clear selection
                </Button>
              </div>
            ) : null}
          </section>
          <section aria-labelledby="alloc-product-title" style={{ height: css(heights.product) }} data-testid="sidebar-product">
            <h2 id="alloc-product-title">
              Licences
              <Button size="small" variant="link" aria-expanded={showProduct} onClick={() => setShowProduct((v) => !v)}>
                {showProduct ? 'Collapse' : 'Expand'}
              </Button>
            </h2>
            {showProduct ? (
              <div className={s.allocSideBody}>
                <ReportTable pools={pools} nameOf={nameOf} />
              </div>
            ) : null}
          </section>
        </aside>
      </div>
    </Frame>
  );
}
