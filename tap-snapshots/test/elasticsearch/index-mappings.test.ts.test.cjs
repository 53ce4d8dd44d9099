/* IMPORTANT
 * This snapshot file is auto-generated, but designed for humans.
 * It should be checked into source control and tracked carefully.
 * Re-generate by setting TAP_SNAPSHOT=1 and running tests.
 * Make sure to inspect the output below.  Do not ignore changes!
 */
'use strict'
exports[`test/elasticsearch/index-mappings.test.ts > TAP > when the settings and mapping are compiled, then they match the reviewed snapshot > index body for a 384-dimension embedder 1`] = `
Object {
  "mappings": Object {
    "_meta": Object {
      "embedding_dimension": 384,
      "mapping_version": 13,
    },
    "_source": Object {
      "excludes": Array [
        "metadata_json",
        "snippet_text",
        "search_text",
        "search_latin",
        "generation",
        "analysis",
      ],
    },
    "dynamic": "strict",
    "properties": Object {
      "act_date": Object {
        "format": "strict_date",
        "type": "date",
      },
      "amount": Object {
        "properties": Object {
          "currency": Object {
            "type": "keyword",
          },
          "value": Object {
            "type": "double",
          },
        },
      },
      "analysis": Object {
        "properties": Object {
          "buyer": Object {
            "type": "keyword",
          },
          "cpv": Object {
            "type": "keyword",
          },
          "cpv_division": Object {
            "type": "keyword",
          },
          "cpv_group": Object {
            "type": "keyword",
          },
          "month": Object {
            "type": "keyword",
          },
          "party": Object {
            "type": "keyword",
          },
          "region": Object {
            "type": "keyword",
          },
          "supplier": Object {
            "type": "keyword",
          },
          "year": Object {
            "type": "keyword",
          },
        },
      },
      "content": Object {
        "index": false,
        "type": "text",
      },
      "content_hash": Object {
        "type": "keyword",
      },
      "country": Object {
        "type": "keyword",
      },
      "cpv": Object {
        "type": "keyword",
      },
      "cpv_labels_el": Object {
        "index": false,
        "type": "text",
      },
      "cpv_labels_en": Object {
        "index": false,
        "type": "text",
      },
      "doc_category": Object {
        "type": "keyword",
      },
      "doc_type": Object {
        "type": "keyword",
      },
      "embedding": Object {
        "dims": 384,
        "index": true,
        "similarity": "cosine",
        "type": "dense_vector",
      },
      "entities": Object {
        "properties": Object {
          "ada": Object {
            "normalizer": "pdi_folded",
            "type": "keyword",
          },
          "afm": Object {
            "type": "keyword",
          },
          "names": Object {
            "fields": Object {
              "exact": Object {
                "ignore_above": 512,
                "normalizer": "pdi_folded",
                "type": "keyword",
              },
            },
            "index": false,
            "type": "text",
          },
        },
      },
      "generation": Object {
        "type": "keyword",
      },
      "indexed_at": Object {
        "format": "strict_date_optional_time||epoch_millis",
        "type": "date",
      },
      "language": Object {
        "type": "keyword",
      },
      "metadata_json": Object {
        "doc_values": true,
        "type": "binary",
      },
      "original": Object {
        "properties": Object {
          "content_type": Object {
            "doc_values": false,
            "index": false,
            "type": "keyword",
          },
          "sha256": Object {
            "doc_values": false,
            "index": false,
            "type": "keyword",
          },
        },
      },
      "parties": Object {
        "properties": Object {
          "afm": Object {
            "type": "keyword",
          },
          "name": Object {
            "ignore_above": 512,
            "normalizer": "pdi_folded",
            "type": "keyword",
          },
          "role": Object {
            "type": "keyword",
          },
        },
        "type": "nested",
      },
      "procedure_type": Object {
        "type": "keyword",
      },
      "published_at": Object {
        "format": "strict_date_optional_time||epoch_millis",
        "type": "date",
      },
      "quality_score": Object {
        "type": "float",
      },
      "region": Object {
        "normalizer": "pdi_folded",
        "type": "keyword",
      },
      "search_latin": Object {
        "analyzer": "standard",
        "type": "text",
      },
      "search_text": Object {
        "analyzer": "pdi_greek",
        "fields": Object {
          "en": Object {
            "analyzer": "pdi_english",
            "type": "text",
          },
        },
        "type": "text",
      },
      "sector": Object {
        "normalizer": "pdi_folded",
        "type": "keyword",
      },
      "snippet_text": Object {
        "doc_values": true,
        "type": "binary",
      },
      "source": Object {
        "type": "keyword",
      },
      "source_id": Object {
        "type": "keyword",
      },
      "source_url": Object {
        "ignore_above": 2048,
        "type": "keyword",
      },
      "summary": Object {
        "index": false,
        "type": "text",
      },
      "tenders_received": Object {
        "type": "integer",
      },
      "title": Object {
        "index": false,
        "type": "text",
      },
    },
  },
  "settings": Object {
    "analysis": Object {
      "analyzer": Object {
        "pdi_english": Object {
          "filter": Array [
            "pdi_english_possessive",
            "pdi_greek_lowercase",
            "pdi_asciifolding",
            "pdi_english_stop",
            "pdi_english_stemmer",
          ],
          "tokenizer": "standard",
          "type": "custom",
        },
        "pdi_greek": Object {
          "filter": Array [
            "pdi_greek_lowercase",
            "pdi_asciifolding",
            "pdi_greek_stop",
            "pdi_greek_stemmer",
          ],
          "tokenizer": "standard",
          "type": "custom",
        },
      },
      "filter": Object {
        "pdi_asciifolding": Object {
          "preserve_original": false,
          "type": "asciifolding",
        },
        "pdi_english_possessive": Object {
          "language": "possessive_english",
          "type": "stemmer",
        },
        "pdi_english_stemmer": Object {
          "language": "english",
          "type": "stemmer",
        },
        "pdi_english_stop": Object {
          "stopwords": Array [
            "a",
            "an",
            "and",
            "are",
            "as",
            "at",
            "be",
            "but",
            "by",
            "for",
            "if",
            "in",
            "into",
            "is",
            "it",
            "no",
            "not",
            "of",
            "on",
            "or",
            "such",
            "that",
            "the",
            "their",
            "then",
            "there",
            "these",
            "they",
            "this",
            "to",
            "was",
            "will",
            "with",
          ],
          "type": "stop",
        },
        "pdi_greek_lowercase": Object {
          "language": "greek",
          "type": "lowercase",
        },
        "pdi_greek_stemmer": Object {
          "language": "greek",
          "type": "stemmer",
        },
        "pdi_greek_stop": Object {
          "stopwords": Array [
            "ο",
            "η",
            "το",
            "οι",
            "τα",
            "του",
            "τησ",
            "των",
            "τον",
            "την",
            "και",
            "κι",
            "κ",
            "ειμαι",
            "εισαι",
            "ειναι",
            "ειμαστε",
            "ειστε",
            "στο",
            "στον",
            "στη",
            "στην",
            "μα",
            "αλλα",
            "απο",
            "για",
            "προσ",
            "με",
            "σε",
            "ωσ",
            "παρα",
            "αντι",
            "κατα",
            "μετα",
            "θα",
            "να",
            "δε",
            "δεν",
            "μη",
            "μην",
            "επι",
            "ενω",
            "εαν",
            "αν",
            "τοτε",
            "που",
            "πωσ",
            "ποιοσ",
            "ποια",
            "ποιο",
            "ποιοι",
            "ποιεσ",
            "ποιων",
            "ποιουσ",
            "αυτοσ",
            "αυτη",
            "αυτο",
            "αυτοι",
            "αυτων",
            "αυτουσ",
            "αυτεσ",
            "αυτα",
            "εκεινοσ",
            "εκεινη",
            "εκεινο",
            "εκεινοι",
            "εκεινεσ",
            "εκεινα",
            "εκεινων",
            "εκεινουσ",
            "οπωσ",
            "ομωσ",
            "ισωσ",
            "οσο",
            "οτι",
          ],
          "type": "stop",
        },
      },
      "normalizer": Object {
        "pdi_folded": Object {
          "filter": Array [
            "pdi_greek_lowercase",
            "pdi_asciifolding",
          ],
          "type": "custom",
        },
      },
    },
    "index": Object {
      "auto_expand_replicas": "0-1",
      "max_result_window": 100000,
      "number_of_shards": 1,
    },
  },
}
`
