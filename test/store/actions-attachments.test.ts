import { describe, expect, it } from 'vitest'
import { APP, LINES, newStore, row, rows } from './support.ts'

const RECALCULATE = 'c0ffee00-0000-4000-8000-000000000001'
const FAILING = 'c0ffee00-0000-4000-8000-000000000002'

describe('runAction', () => {
  it('runs the succeeding action and applies its effect to the Ids passed', () => {
    const store = newStore()
    const before = row(store, 2).TIMESTAMP
    const outcome = store.runAction({ applicationId: APP, actionId: RECALCULATE, userId: 1, parameters: [{ key: 'Ids', value: '2, 4,999,x,4' }] })
    expect(outcome).toEqual({ message: 'Totals recalculated.', isSuccessful: true, result: 'OK', isAsync: false, changedIds: [2, 4] })
    expect(rows(store, "$filter=Status eq 'Recalculated'").map((r) => r.Id)).toEqual([2, 4])
    expect(row(store, 2).TIMESTAMP).toBeGreaterThan(before)
  })

  it('reports the failing action and changes nothing', () => {
    const store = newStore()
    const outcome = store.runAction({ applicationId: APP, actionId: FAILING, userId: 1, parameters: [{ key: 'Ids', value: '1' }] })
    expect(outcome).toMatchObject({ isSuccessful: false, message: 'Fiscal period 2024-12 is locked; nothing was changed.', changedIds: [] })
    expect(row(store, 1).Status).toBe('Invoiced')
  })

  it('does not know other actions', () => {
    expect(newStore().runAction({ applicationId: APP, actionId: 'c0ffee00-0000-4000-8000-000000000009', userId: 1, parameters: [] })).toMatchObject({
      error: 'UNKNOWN_ACTION',
    })
  })
})

describe('attachments', () => {
  it("lists a row's top level and a folder's contents", () => {
    const store = newStore()
    const top = store.listAttachments(APP, null, 1)
    expect(Array.isArray(top) && top.map((a) => [a.name, a.isFolder])).toEqual([
      ['invoice.pdf', false],
      ['Photos', true],
    ])
    const photos = store.listAttachments(APP, null, 1, 2)
    expect(Array.isArray(photos) && photos.map((a) => [a.name, a.mediaType])).toEqual([
      ['front.jpg', 'image/jpeg'],
      ['back.jpg', 'image/jpeg'],
    ])
    const detail = store.listAttachments(APP, LINES, 1)
    expect(Array.isArray(detail) && detail.map((a) => a.name)).toEqual(['spec.txt'])
    expect(store.listAttachments(APP, null, 2)).toEqual([])
    expect(store.listAttachments(APP, 'Nope', 1)).toMatchObject({ error: 'UNKNOWN_RELATION_KEY' })
  })

  it('finds an attachment only under its own relation key, with its bytes', () => {
    const store = newStore()
    const pdf = store.getAttachment(APP, null, 1)
    expect(
      Buffer.from(pdf?.content ?? [])
        .subarray(0, 8)
        .toString(),
    ).toBe('%PDF-1.4')
    expect(store.getAttachment(APP, LINES, 1)).toBeUndefined()
    expect(store.getAttachment(APP, LINES, 5)?.name).toBe('spec.txt')
  })

  it('lists the files under a folder with their paths', () => {
    const store = newStore()
    const folder = store.getAttachment(APP, null, 2)
    expect(folder && store.folderFiles(folder).map((f) => f.path)).toEqual([['front.jpg'], ['back.jpg']])
  })

  it('adds an attachment and updates CT_ATTACHMENTS without a new TIMESTAMP', () => {
    const store = newStore()
    const before = row(store, 2)
    const added = store.addAttachments((add) =>
      add({
        applicationId: APP,
        relationKey: null,
        parentId: 2,
        folderId: null,
        isFolder: false,
        name: 'note.txt',
        mediaType: 'text/plain',
        content: new Uint8Array([104, 105]),
        userId: 1,
      }),
    )
    expect(added).toMatchObject({ id: 6, name: 'note.txt', description: '', createdAt: '2025-02-03T04:05:06.000Z' })
    expect(row(store, 2)).toEqual({ ...before, CT_ATTACHMENTS: 1 })
    expect(rows(store, '$filter=Id eq 2')[0]?.CT_ATTACHMENTS).toBe(1)
    expect(
      store.addAttachments((add) =>
        add({ applicationId: APP, relationKey: null, parentId: 404, folderId: null, isFolder: false, name: 'x', mediaType: 'text/plain', userId: 1 }),
      ),
    ).toMatchObject({ error: 'UNKNOWN_ROW' })
    expect(
      store.addAttachments((add) =>
        add({ applicationId: APP, relationKey: null, parentId: 2, folderId: 1, isFolder: false, name: 'x', mediaType: 'text/plain', userId: 1 }),
      ),
    ).toMatchObject({ error: 'UNKNOWN_ROW', message: 'folder 1 is not a folder of row 2' })
  })

  it('takes back every attachment of an upload that fails part-way, and the Ids it took', () => {
    const store = newStore()
    const before = row(store, 2)
    const file = { applicationId: APP, relationKey: null, parentId: 2, folderId: null, isFolder: false, name: 'a.txt', mediaType: 'text/plain', userId: 1 }
    expect(() =>
      store.addAttachments((add) => {
        add(file)
        add({ ...file, name: 'b.txt' })
        throw new Error('the disk is full')
      }),
    ).toThrow('the disk is full')
    expect(row(store, 2)).toEqual(before)
    expect(store.listAttachments(APP, null, 2)).toEqual([])
    expect(store.addAttachments((add) => add(file))).toMatchObject({ id: 6 })
  })
})
