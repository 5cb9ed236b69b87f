// The two application-package files a Vespa feed from `encode --format vespa` needs: the schema (schemas/<doctype>.sd,
// a tensor<float>(token{}) field and a rank profile taking the sparse dot product with the query's tensor) and a
// services.xml whose splade-embedder turns query text into that tensor from a logits ONNX file and tokenizer.json
// (docs.vespa.ai/en/rag/embedding.html#splade-embedder, en/reference/rag/embedding.html "splade embedder reference
// config", en/ranking/tensor-user-guide.html for sum(query(q) * attribute(field))).

export interface VespaApplication {
  doctype: string;
  /** The tensor field holding the vectors. */
  field: string;
}

/** The ONNX file services.xml points at: the un-pooled (batch, sequence, vocabulary) logits `export-onnx --output logits` writes. */
export const VESPA_MODEL_FILE = 'model-logits.onnx';

/** The embedder's id in services.xml, used by queries as embed(splade, ...). */
export const VESPA_EMBEDDER_ID = 'splade';

export function vespaSchema(app: VespaApplication): string {
  return `# Written by splade-lab encode --format vespa: the feed's fields, and a rank profile scoring a document by the
# sparse dot product of its SPLADE tensor with the query's, query(q) (embedded by the ${VESPA_EMBEDDER_ID} component of services.xml).
schema ${app.doctype} {
    document ${app.doctype} {
        field doc_id type string {
            indexing: summary | attribute
        }
        field text type string {
            indexing: summary | index
            index: enable-bm25
        }
        field ${app.field} type tensor<float>(token{}) {
            indexing: summary | attribute
        }
    }
    rank-profile splade {
        inputs {
            query(q) tensor<float>(token{})
        }
        first-phase {
            expression: sum(query(q) * attribute(${app.field}))
        }
    }
}
`;
}

export function vespaServices(app: VespaApplication): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<!-- Written by splade-lab encode --format vespa. Put ${VESPA_MODEL_FILE} (splade-lab export-onnx --output logits) and the
     model's tokenizer.json in the application package's models/ folder. The embedder computes log(1 + ReLU(max logits))
     per token and labels each with tokenizer.decode([id]), the token string itself for WordPiece vocabularies. -->
<services version="1.0">
    <container id="default" version="1.0">
        <search />
        <document-api />
        <component id="${VESPA_EMBEDDER_ID}" type="splade-embedder">
            <transformer-model path="models/${VESPA_MODEL_FILE}" />
            <tokenizer-model path="models/tokenizer.json" />
            <transformer-output>logits</transformer-output>
        </component>
    </container>
    <content id="content" version="1.0">
        <min-redundancy>1</min-redundancy>
        <documents>
            <document type="${app.doctype}" mode="index" />
        </documents>
    </content>
</services>
`;
}
