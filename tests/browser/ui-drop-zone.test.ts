// <drop-zone>: files dragged over it highlight it; dropped files come out as one `files-drop` event; a drop without
// files (text, say) sends nothing; the slotted inputs stay in place.
import '../../src/ui/common/drop-zone.ts';
import type { DropZone } from '../../src/ui/common/drop-zone.ts';
import { cleanup, events, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

function drag(type: 'dragover' | 'dragleave' | 'drop', data: DataTransfer): DragEvent {
  return new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true });
}

describe('<drop-zone>', () => {
  it('highlights while files are over it and hands the dropped files on', async () => {
    cleanup();
    const el = await mount<DropZone>('drop-zone');
    el.innerHTML = '<label>pick <input type="file" /></label>';
    const dropped = events<File[]>(el, 'files-drop');
    const data = new DataTransfer();
    data.items.add(new File(['a'], 'corpus.jsonl'));
    data.items.add(new File(['b'], 'queries.jsonl'));
    const over = drag('dragover', data);
    el.dispatchEvent(over);
    expect(el.hasAttribute('dragging'), 'highlighted, and the browser told a drop is welcome').toBe(true);
    expect(over.defaultPrevented, 'highlighted, and the browser told a drop is welcome').toBeTruthy();
    el.dispatchEvent(drag('dragleave', data));
    expect(el.hasAttribute('dragging'), 'no highlight once the files leave').toBeFalsy();
    el.dispatchEvent(drag('dragover', data));
    const drop = drag('drop', data);
    el.dispatchEvent(drop);
    expect(drop.defaultPrevented, 'the drop is ours (the browser does not open the file) and the highlight goes').toBeTruthy();
    expect(
      el.hasAttribute('dragging'),
      'the drop is ours (the browser does not open the file) and the highlight goes',
    ).toBeFalsy();
    expect(dropped, `dropped: ${JSON.stringify(dropped.map((d) => d.map((f) => f.name)))}`).toHaveLength(1);
    expect(dropped[0].map((f) => f.name).join(), `dropped: ${JSON.stringify(dropped.map((d) => d.map((f) => f.name)))}`).toBe(
      'corpus.jsonl,queries.jsonl',
    );
    el.dispatchEvent(drag('drop', new DataTransfer()));
    expect(dropped, 'a drop without files sends nothing').toHaveLength(1);
    expect(el.querySelector('input[type="file"]'), 'the slotted input stays').not.toBeNull();
  });
});
