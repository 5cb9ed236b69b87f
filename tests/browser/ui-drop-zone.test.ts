// <drop-zone>: files dragged over it highlight it; dropped files come out as one `files-drop` event; a drop without
// files (text, say) sends nothing; the slotted inputs stay in place.
import '../../src/ui/common/drop-zone.ts';
import type { DropZone } from '../../src/ui/common/drop-zone.ts';
import { check, cleanup, events, mount } from './ui-fixture.ts';

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
    check(el.hasAttribute('dragging') && over.defaultPrevented, 'highlighted, and the browser told a drop is welcome');
    el.dispatchEvent(drag('dragleave', data));
    check(!el.hasAttribute('dragging'), 'no highlight once the files leave');
    el.dispatchEvent(drag('dragover', data));
    const drop = drag('drop', data);
    el.dispatchEvent(drop);
    check(
      drop.defaultPrevented && !el.hasAttribute('dragging'),
      'the drop is ours (the browser does not open the file) and the highlight goes',
    );
    check(
      dropped.length === 1 && dropped[0].map((f) => f.name).join() === 'corpus.jsonl,queries.jsonl',
      `dropped: ${JSON.stringify(dropped.map((d) => d.map((f) => f.name)))}`,
    );
    el.dispatchEvent(drag('drop', new DataTransfer()));
    check(dropped.length === 1, 'a drop without files sends nothing');
    check(el.querySelector('input[type="file"]') !== null, 'the slotted input stays');
  });
});
