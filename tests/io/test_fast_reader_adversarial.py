"""Adversarial probes of the reader's fast path (io/xml/_fast/reader.py) against its reference, the lxml path.

Each case edits a corpus model (dml-split-axis3-2) the way an attacker or a sloppy writer might, and
checks that reading it with the fast path enabled gives exactly what the lxml path alone gives: the
same model and findings, or the same error.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.io.test_fast_reader import BASE, read_both, write_case

Edit = Callable[[str], "str | bytes"]


def sub(old: str, new: str, count: int = 1) -> Edit:
    """Replace the first ``count`` occurrences of ``old`` (which must occur) by ``new``."""

    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, count)

    return edit


def chain(*edits: Edit) -> Edit:
    def edit(text: str) -> str | bytes:
        for step in edits:
            text = step(text)  # type: ignore[assignment]
        return text

    return edit


def encoded(edit: Edit) -> Edit:
    return lambda text: edit(text).encode("utf-8")  # type: ignore[union-attr]


# Pieces of the base model.
DECL = '<?xml version="1.0"?>\n'
NET_NAME = 'name="dml_split_axis3"'
NAME = 'name="input"'
SPLIT_DATA = '<data num_splits="2" />'
CONST_DATA = '<data element_type="i64" shape="" offset="0" size="8" />'
PARAM_TAG = '<layer id="0" name="input" type="Parameter" version="opset1">'
CONST_TAG = '<layer id="1" name="split/axis" type="Const" version="opset1">'
RESULT_TAG = '<layer id="3" name="output0" type="Result" version="opset1" output_names="output0">'
SPLIT_IN = '<input>\n\t\t\t\t<port id="0" precision="FP32">'
SPLIT_IN1 = '<port id="1" precision="I64" />'
OUT0_DIMS = (
    '<port id="2" precision="FP32" names="output0">\n'
    "\t\t\t\t\t<dim>1</dim>\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t\t<dim>6</dim>\n\t\t\t\t\t<dim>1</dim>\n"
)
OUT0_END = OUT0_DIMS + "\t\t\t\t</port>"
NET_RT = "\t<rt_info />\n</net>"
EDGE0 = '<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />'
EDGE1 = '<edge from-layer="1" from-port="0" to-layer="2" to-port="1" />'
EDGES = "\t<edges>\n\t\t" + EDGE0
LAYER_END = "</layer>\n"


def many_attributes(count: int) -> str:
    return "<a " + " ".join(f'a{i}="1"' for i in range(count)) + " />"


def nested(depth: int) -> str:
    return "<d>" * depth + "</d>" * depth


CASES = [
    # ------------------------------------------------------------------ XML declaration and prolog
    pytest.param(sub(DECL, '<?xml version="1.0" encoding="UTF-8"?>\n'), id="decl-encoding-UTF-8"),
    pytest.param(sub(DECL, '<?xml version="1.0" encoding="utf-8"?>\n'), id="decl-encoding-utf-8"),
    pytest.param(sub(DECL, '<?xml version="1.0" encoding="Utf-8"?>\n'), id="decl-encoding-mixed-case"),
    pytest.param(sub(DECL, "<?xml version='1.0' encoding=\"UTF-8\"?>\n"), id="decl-mixed-quotes"),
    pytest.param(sub(DECL, "<?xml version=\"1.0'?>\n"), id="decl-mismatched-quotes"),
    pytest.param(sub(DECL, '<?xml version="1.0" standalone="yes"?>\n'), id="decl-standalone"),
    pytest.param(sub(DECL, '<?xml version="1.1"?>\n'), id="decl-version-1.1"),
    pytest.param(sub(DECL, '<?xml version="1.0" ?>\n'), id="decl-space-before-end"),
    pytest.param(sub(DECL, '<?xml version="1.0"?>'), id="decl-no-newline"),
    pytest.param(sub(DECL, '<?xml version="1.0"?>\t \t\n\n'), id="decl-tabs-after"),
    pytest.param(sub(DECL, '\n<?xml version="1.0"?>\n'), id="decl-after-newline"),
    pytest.param(sub(DECL, '<?xml version="1.0"?>\n<?pi x?>\n'), id="pi-before-net"),
    pytest.param(sub(DECL, "\n \t"), id="no-decl-leading-whitespace"),
    pytest.param(encoded(lambda t: "\ufeff" + t), id="bom-and-decl"),
    pytest.param(encoded(lambda t: "\ufeff" + t.split("\n", 1)[1]), id="bom-no-decl"),
    pytest.param(sub(DECL, '<?xml version="1.0"?>\n<!-- c -->\n'), id="comment-before-net"),
    pytest.param(lambda t: t + " \t\n\n", id="whitespace-after-net"),
    pytest.param(lambda t: t + "<!-- c -->\n", id="comment-after-net"),
    pytest.param(lambda t: t + "<net />\n", id="second-root"),
    pytest.param(lambda t: t + "x", id="text-after-net"),
    # ------------------------------------------------------------------ whitespace and tags
    pytest.param(lambda t: t.replace("\t", "  "), id="spaces-for-tabs"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2"/>'), id="no-space-before-slash"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace(" name=", "  name=")), id="double-space-in-layer-tag"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace(" name=", "\n\t\t\tname=")), id="newline-in-layer-tag"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace(" name=", "\tname=")), id="tab-in-layer-tag"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('">', '" >')), id="space-before-gt"),
    pytest.param(sub(LAYER_END, "</layer >\n"), id="space-in-end-tag"),
    pytest.param(sub(LAYER_END, "</layer>\x0c\n"), id="form-feed-between-layers"),
    pytest.param(sub(LAYER_END, "</layer>\u00a0\n"), id="nbsp-between-layers"),
    pytest.param(sub(LAYER_END, "</layer>\u3000\n"), id="ideographic-space-between-layers"),
    pytest.param(sub(LAYER_END, "</layer>" + "\n" * 5), id="blank-lines-between-layers"),
    pytest.param(sub("<layers>", '<layers xmlns="urn:x">'), id="namespace-on-layers"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('">', '" xmlns:p="urn:x">')), id="namespace-on-layer"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('">', '" id="0">')), id="repeated-attribute-on-layer"),
    pytest.param(sub('<port id="1" precision="I64" />', '<port id="1" id="1" precision="I64" />'),
                 id="repeated-attribute-on-port"),
    pytest.param(sub(EDGE0, EDGE0.replace(" />", ' to-port="0" />')), id="repeated-attribute-on-edge"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('">', '" extra="1">')), id="extra-attribute-on-layer"),
    # ------------------------------------------------------------------ attribute values
    pytest.param(sub(NAME, 'name="a>b/c"'), id="gt-in-name"),
    pytest.param(sub(NAME, 'name="a]]>b"'), id="cdata-end-in-name"),
    pytest.param(sub(NAME, "name=\"it's\""), id="apostrophe-in-name"),
    pytest.param(sub(NAME, 'name="&apos;&quot;&lt;&gt;&amp;"'), id="all-five-escapes"),
    pytest.param(sub(NAME, 'name="&amp;lt;&amp;amp;&amp;quot;"'), id="double-escapes"),
    pytest.param(sub(NAME, 'name="&quot;&amp;quot;"'), id="escape-then-double-escape"),
    pytest.param(sub(NAME, 'name="&#x41;"'), id="hex-character-reference"),
    pytest.param(sub(NAME, 'name="&#1;"'), id="control-character-reference"),
    pytest.param(sub(NAME, 'name="&#0;"'), id="nul-character-reference"),
    pytest.param(sub(NAME, 'name="&AMP;"'), id="uppercase-entity"),
    pytest.param(sub(NAME, 'name="&nbsp;"'), id="undefined-entity"),
    pytest.param(sub(NAME, 'name="a&b"'), id="bare-ampersand"),
    pytest.param(sub(NAME, 'name="a&amp"'), id="unterminated-entity"),
    pytest.param(sub(NAME, 'name="a<b"'), id="raw-lt"),
    pytest.param(sub(NAME, 'name="a\nb"'), id="newline-in-name"),
    pytest.param(sub(NAME, 'name="a\rb"'), id="cr-in-name"),
    pytest.param(sub(NAME, 'name="a\x00b"'), id="nul-in-name"),
    pytest.param(sub(NAME, 'name="a\x7f\x85\x9f"'), id="del-and-c1-in-name"),
    pytest.param(sub(NAME, 'name="a\u2028b\u0085c"'), id="unicode-line-separators-in-name"),
    pytest.param(sub(NAME, 'name="a\ufeffb"'), id="bom-inside-name"),
    pytest.param(sub(NAME, 'name="a\ufffe"'), id="u-fffe-in-name"),
    pytest.param(sub(NAME, 'name="a\ufdd0\U0001fffe\U0010ffff"'), id="noncharacters-in-name"),
    pytest.param(sub(NAME, 'name="a\U0010ff01"'), id="control-stand-in-in-name"),
    pytest.param(sub(NAME, 'name="\u6a21\u578b \U0001f600 e\u0301"'), id="cjk-emoji-combining-in-name"),
    pytest.param(sub(NET_NAME, 'name="n\u00e9t &amp; \U0001f600"'), id="unicode-net-name"),
    pytest.param(sub(NET_NAME, 'name=""'), id="empty-net-name"),
    pytest.param(sub(NET_NAME, ""), id="no-net-name"),
    pytest.param(lambda t: t.encode("utf-8").replace(b'name="input"', b'name="a\xc3"'), id="invalid-utf8"),
    pytest.param(lambda t: t.encode("utf-8").replace(b'name="input"', b'name="a\xc0\xaf"'), id="overlong-utf8"),
    pytest.param(lambda t: t.encode("utf-8").replace(b'name="input"', b'name="a\xed\xa0\x80"'),
                 id="encoded-surrogate"),
    pytest.param(sub(NAME, 'name="' + "n" * 1_000_000 + '"'), id="one-megabyte-name"),
    # ------------------------------------------------------------------ tensor names and output_names
    pytest.param(sub('names="output0"', 'names="a\\,b,c,a\\,b,,c,"'), id="names-escaped-commas-duplicates"),
    pytest.param(sub('names="output0"', 'names="a\\\\,b\\"'), id="names-backslashes"),
    pytest.param(sub('names="output0"', 'names=""'), id="names-empty"),
    pytest.param(sub('names="output0"', 'names=",,a,,"'), id="names-only-commas-around"),
    pytest.param(sub('names="output0"', 'names="&quot;a,b&quot;,&lt;c&gt;"'), id="names-escaped-quotes"),
    pytest.param(sub('names="output0"', 'names="a names=b"'), id="names-value-containing-names"),
    pytest.param(sub('names="output0"', 'names="\u00e9,\U0001f600"'), id="names-unicode"),
    pytest.param(sub('names="output0"', 'names="a&b"'), id="names-bare-ampersand"),
    pytest.param(sub('names="output0"', 'names="a\tb"'), id="names-tab"),
    pytest.param(sub('names="output0"', "names='x'"), id="names-single-quoted"),
    pytest.param(sub('names="output0"', 'names = "x"'), id="names-spaced-equals"),
    pytest.param(sub('names="output0"', 'names="x" names="y"'), id="names-twice"),
    pytest.param(sub('precision="FP32" names="output0">', 'names="output0" precision="FP32">'),
                 id="names-before-precision"),
    pytest.param(sub(SPLIT_IN, SPLIT_IN + ' names="in&amp;put,x\\,y"'), id="names-on-input-port-escaped"),
    pytest.param(sub(SPLIT_IN, SPLIT_IN + ' names="a<b"'), id="names-on-input-port-not-well-formed"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" precision="I64" names="k" />'), id="names-on-self-closing-input-port"),
    pytest.param(sub('<port id="0" precision="I64" />', '<port id="0" precision="I64" names="axis" />'),
                 id="names-on-const-output"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" names="x" />'), id="names-attribute-in-data"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" x="a names=" />'), id="data-value-ending-in-names"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" x_names="a" />'), id="data-attribute-suffix-names"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><a>x names="y"</a></rt_info>'), id="names-in-rt-info-text"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><!-- names="y" --></rt_info>'),
                 id="names-in-rt-info-comment"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + '<rt_info><a names="z" /></rt_info></port>'), id="names-in-port-rt-info"),
    pytest.param(sub(NET_RT, '\t<rt_info><a names="z" /></rt_info>\n</net>'), id="names-in-net-rt-info"),
    pytest.param(sub(RESULT_TAG, RESULT_TAG.replace('output_names="output0"', 'output_names="a\\,b,,a\\,b,c"')),
                 id="output-names-escaped-commas"),
    pytest.param(sub(RESULT_TAG, RESULT_TAG.replace('output_names="output0"', 'output_names=""')),
                 id="output-names-empty"),
    pytest.param(sub(RESULT_TAG, RESULT_TAG.replace('output_names="output0"', 'output_names="&lt;&amp;&gt;"')),
                 id="output-names-escaped"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('">', '" output_names="p">')), id="output-names-on-parameter"),
    pytest.param(sub(RESULT_TAG, RESULT_TAG.replace(' output_names="output0"', "")), id="result-without-output-names"),
    pytest.param(sub(RESULT_TAG, RESULT_TAG.replace('name="output0" type', 'output_names="output0" name="output0" type')
                     .replace(' version="opset1" output_names="output0"', ' version="opset1"')),
                 id="output-names-before-type"),
    # ------------------------------------------------------------------ ids, port ids and edges
    pytest.param(lambda t: t.replace('<layer id="1"', '<layer id="01"').replace('from-layer="1"', 'from-layer="01"'),
                 id="leading-zero-layer-id-used-consistently"),
    pytest.param(sub('<layer id="1"', '<layer id="01"'), id="leading-zero-layer-id-edge-plain"),
    pytest.param(sub('from-layer="1"', 'from-layer="01"'), id="edge-layer-leading-zero"),
    pytest.param(sub('from-layer="1"', 'from-layer=" 1"'), id="edge-layer-with-space"),
    pytest.param(sub('from-layer="1"', 'from-layer="+1"'), id="edge-layer-plus-sign"),
    pytest.param(sub('from-layer="1"', 'from-layer="x"'), id="edge-layer-not-a-number"),
    pytest.param(sub('to-port="1"', 'to-port="01"'), id="edge-port-leading-zero"),
    pytest.param(chain(sub(SPLIT_IN1, '<port id="01" precision="I64" />'), sub('to-port="1"', 'to-port="01"')),
                 id="leading-zero-port-id-used-consistently"),
    pytest.param(sub(SPLIT_IN1, '<port id="00" precision="I64" />'), id="port-labels-0-and-00"),
    pytest.param(chain(sub(SPLIT_IN1, '<port id="00" precision="I64" />'), sub('to-port="1"', 'to-port="00"')),
                 id="port-labels-0-and-00-edge-00"),
    pytest.param(sub(SPLIT_IN1, '<port id="0" precision="I64" />'), id="duplicate-input-port-id"),
    pytest.param(sub('<port id="2" precision', '<port id="0" precision'), id="output-port-id-equals-input-port-id"),
    pytest.param(lambda t: t.replace('<layer id="1"', '<layer id="999999999999999999"')
                 .replace('from-layer="1"', 'from-layer="999999999999999999"'), id="18-digit-layer-id"),
    pytest.param(lambda t: t.replace('<layer id="1"', '<layer id="9223372036854775807"')
                 .replace('from-layer="1"', 'from-layer="9223372036854775807"'), id="int64-max-layer-id"),
    pytest.param(lambda t: t.replace('<layer id="1"', '<layer id="9223372036854775808"')
                 .replace('from-layer="1"', 'from-layer="9223372036854775808"'), id="above-int64-layer-id"),
    pytest.param(lambda t: t.replace('<layer id="1"', '<layer id="000000000000000000001"')
                 .replace('from-layer="1"', 'from-layer="000000000000000000001"'), id="21-digit-padded-layer-id"),
    pytest.param(sub('<layer id="1"', '<layer id="0"'), id="duplicate-layer-id"),
    pytest.param(sub('<layer id="3"', '<layer id="01"'), id="layer-ids-1-and-01"),
    pytest.param(sub(EDGE0, EDGE0 + "\n\t\t" + EDGE0), id="duplicate-edge"),
    pytest.param(sub(EDGE0, '<edge from-layer="1" from-port="0" to-layer="2" to-port="0" />'), id="two-producers"),
    pytest.param(sub(EDGE0, '<edge from-layer="0" from-port="7" to-layer="2" to-port="0" />'), id="edge-unknown-port"),
    pytest.param(sub(EDGE0, '<edge from-layer="0" from-port="0" to-layer="9" to-port="0" />'), id="edge-unknown-layer"),
    pytest.param(sub(EDGE0, '<edge from-layer="2" from-port="0" to-layer="2" to-port="0" />'),
                 id="edge-from-an-input-port"),
    pytest.param(sub(EDGE0 + "\n\t\t" + EDGE1, EDGE1 + "\n\t\t" + EDGE0), id="edges-reordered"),
    pytest.param(sub(EDGE0, '<edge from-port="0" from-layer="0" to-layer="2" to-port="0" />'),
                 id="edge-attributes-reordered"),
    pytest.param(sub(EDGE0, '<edge from-layer="0" from-port="0" to-layer="2" />'), id="edge-missing-attribute"),
    pytest.param(sub(EDGE0, '<edge from-layer="0" from-port="0" to-layer="2" to-port="0"></edge>'),
                 id="edge-not-self-closing"),
    pytest.param(sub(EDGE0, "<!-- </edges> -->" + EDGE0), id="edges-end-tag-in-comment"),
    pytest.param(sub(EDGE0, "<foo />" + EDGE0), id="unknown-element-in-edges"),
    # ------------------------------------------------------------------ sections
    pytest.param(lambda t: t.split("\t<layers>")[0] + "\t<layers>\n\t</layers>\n\t<edges>\n\t</edges>\n</net>\n",
                 id="no-layers-no-edges"),
    pytest.param(lambda t: t.split("\t<layers>")[0] + "\t<layers />\n\t<edges />\n</net>\n",
                 id="self-closing-sections"),
    pytest.param(lambda t: t.split("\t<edges>")[0] + "\t<edges>\n\t</edges>\n</net>\n", id="empty-edges"),
    pytest.param(lambda t: t.split("\t<edges>")[0] + "</net>\n", id="no-edges"),
    pytest.param(lambda t: t.split("\t<edges>")[0] + "\t<edges />\n</net>\n", id="self-closing-edges"),
    pytest.param(sub(NET_RT, "</net>"), id="no-net-rt-info"),
    pytest.param(sub(NET_RT, "\t<rt_info></rt_info>\n</net>"), id="empty-net-rt-info"),
    pytest.param(sub(NET_RT, "\t<rt_info/>\n</net>"), id="net-rt-info-no-space"),
    pytest.param(sub(NET_RT, '\t<rt_info>\n\t\t<a x="1">\n\t\t\t<b y="&lt;2&gt;" />\n\t\t</a>\n'
                     '\t\t<!-- c --><?pi x?><![CDATA[ </rt_info> ]]>text\n\t</rt_info>\n</net>'),
                 id="net-rt-info-rich-content"),
    pytest.param(sub(NET_RT, "\t<rt_info><!-- </rt_info> --><a /></rt_info>\n</net>"), id="net-rt-info-end-in-comment"),
    pytest.param(sub(NET_RT, "\t<rt_info><a /></rt_info><foo />\n</net>"), id="element-after-net-rt-info"),
    pytest.param(sub(NET_RT, "\t<foo /><rt_info><a /></rt_info>\n</net>"), id="element-before-net-rt-info"),
    pytest.param(sub(NET_RT, "\t<rt_info><a /></rt_info><rt_info><b /></rt_info>\n</net>"), id="net-rt-info-twice"),
    pytest.param(sub(NET_RT, '\t<rt_info><a /></rt_info><edges><edge from-layer="0" from-port="0" to-layer="2" '
                     'to-port="0" /></edges><layers /><rt_info></rt_info>\n</net>'),
                 id="net-rt-info-edges-layers-rt-info"),
    pytest.param(sub(NET_RT, "\t<rt_info><a /></rt_info><foo /><rt_info />\n</net>"),
                 id="net-rt-info-element-rt-info-self-closing"),
    pytest.param(sub(NET_RT, "\t<rt_info><a /></rt_info><foo /><rt_info></rt_info>\n</net>"),
                 id="net-rt-info-element-rt-info"),
    pytest.param(sub(NET_RT, "\t<rt_info><a /></rt_info></a><a><rt_info></rt_info>\n</net>"),
                 id="net-rt-info-stray-end-tag"),
    pytest.param(sub("\t<edges>", "\t<rt_info><a /></rt_info>\n\t<edges>"), id="net-rt-info-before-edges"),
    pytest.param(sub("\t<layers>", "\t<rt_info />\n\t<layers>"), id="net-rt-info-before-layers"),
    pytest.param(lambda t: t.replace("\t<layers>", "\t<edges />\n\t<layers>"), id="edges-before-layers"),
    pytest.param(sub(NET_RT, "\t<layers />\n" + NET_RT), id="second-layers-section"),
    # ------------------------------------------------------------------ layer bodies
    pytest.param(sub(SPLIT_DATA, "<data></data>"), id="data-start-end"),
    pytest.param(sub(SPLIT_DATA, "<data />"), id="split-without-attributes"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + SPLIT_DATA), id="two-data"),
    pytest.param(sub('<data shape="1,1,6,2" element_type="f32" />', ""), id="parameter-without-data"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" xml="1" XMLNS="2" xmlfoo="3" a.b-c="4" _u="5" />'),
                 id="data-xml-like-attribute-names"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" xmlnsfoo="1" />'), id="data-xmlnsfoo"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" xmlns:p="urn:x" p:a="1" />'), id="data-prefixed-attribute"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" \u00e9="1" />'), id="data-non-ascii-attribute-name"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" ' + "a" * 1000 + '="1" />'), id="data-1000-char-name"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" ' + "a" * 1001 + '="1" />'), id="data-1001-char-name"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" ' + "a" * 50001 + '="1" />'), id="data-50001-char-name"),
    pytest.param(sub(SPLIT_DATA, "<data " + " ".join(f'a{i}="{i}"' for i in range(1000)) + " />"),
                 id="data-1000-attributes"),
    pytest.param(sub(SPLIT_DATA, "<data " + " ".join(f'a{i}="{i}"' for i in range(1001)) + " />"),
                 id="data-1001-attributes"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" num_splits="2" />'), id="data-repeated-attribute"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" x="]]>" y="&gt;" />'), id="data-extra-with-gt"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits=" 2 " />'), id="data-value-with-spaces"),
    pytest.param(sub('<input>\n\t\t\t\t<port id="0" precision="FP32">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t\t<dim>1</dim>\n'
                     '\t\t\t\t\t<dim>6</dim>\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t</port>\n\t\t\t</input>', "<input />"),
                 id="result-self-closing-input"),
    pytest.param(sub('<output>\n\t\t\t\t<port id="0" precision="I64" />\n\t\t\t</output>', "<output>\n\t\t\t</output>"),
                 id="const-empty-output"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info />"), id="layer-empty-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info></rt_info>"), id="layer-rt-info-start-end"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info/>"), id="layer-rt-info-no-space"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><a /></rt_info><rt_info><b /></rt_info>"),
                 id="layer-rt-info-twice"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><rt_info /></rt_info>"), id="layer-rt-info-nested-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><!-- </layer> --></rt_info>"),
                 id="layer-end-tag-in-rt-info-comment"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><![CDATA[</layer>]]></rt_info>"),
                 id="layer-end-tag-in-rt-info-cdata"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><layer /><layer></layer></rt_info>"),
                 id="layer-elements-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><![CDATA[ <layer x ]]><!-- <layer --></rt_info>"),
                 id="layer-start-text-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><a><![CDATA[</rt_info>]]></a></rt_info>"),
                 id="rt-info-end-in-cdata"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><a xmlns="urn:d" xmlns:p="urn:p" p:x="1"><p:b /></a>'
                     "</rt_info>"), id="namespaces-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><p:a /></rt_info>"), id="undeclared-prefix-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><a xml:lang="en" xml:space="preserve"> t </a></rt_info>'),
                 id="xml-attributes-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><a v="&#65;&#x10FFFF;&#9;&#10;" /></rt_info>'),
                 id="character-references-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><a v="a\tb\nc" /></rt_info>'),
                 id="whitespace-normalised-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><a>]]></a></rt_info>"), id="cdata-end-in-rt-info-text"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><a><!-- a -- b --></a></rt_info>"),
                 id="double-hyphen-in-rt-info-comment"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><?xml version="1.0"?></rt_info>'), id="xml-decl-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><?XML x?></rt_info>"), id="reserved-pi-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<rt_info><a v="1" v="2" /></rt_info>'),
                 id="repeated-attribute-in-rt-info"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info>" + many_attributes(1000) + "</rt_info>"),
                 id="rt-info-1000-attributes"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info>" + many_attributes(1001) + "</rt_info>"),
                 id="rt-info-1001-attributes"),
    # libxml2 allows 256 nested elements: <net> 1, <layers> 2, <layer> 3, <output> 4, <port> 5.
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info>" + nested(252) + "</rt_info>"),
                 id="layer-rt-info-depth-256"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<rt_info>" + nested(253) + "</rt_info>"),
                 id="layer-rt-info-depth-257"),
    pytest.param(sub(NET_RT, "\t<rt_info>" + nested(254) + "</rt_info>\n</net>"), id="net-rt-info-depth-256"),
    pytest.param(sub(NET_RT, "\t<rt_info>" + nested(255) + "</rt_info>\n</net>"), id="net-rt-info-depth-257"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + "<rt_info>" + nested(250) + "</rt_info></port>"),
                 id="port-rt-info-depth-256"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + "<rt_info>" + nested(251) + "</rt_info></port>"),
                 id="port-rt-info-depth-257"),
    pytest.param(sub(SPLIT_DATA, "<rt_info><a /></rt_info>" + SPLIT_DATA), id="rt-info-before-data"),
    pytest.param(sub("\t\t\t</output>\n\t\t</layer>\n\t\t<layer id=\"3\"",
                     "\t\t\t</output>\n<rt_info><a /></rt_info>\t\t</layer>\n\t\t<layer id=\"3\""),
                 id="rt-info-after-ports"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "<foo />"), id="unknown-element-in-layer"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + "text"), id="text-in-layer"),
    pytest.param(sub(SPLIT_DATA, SPLIT_DATA + '<layer id="9" name="n" type="Parameter" version="opset1"></layer>'),
                 id="layer-nested-in-layer"),
    pytest.param(lambda t: t.replace(CONST_TAG, CONST_TAG.replace('">', '" />') + "<!--", 1)
                 .replace("</layer>\n\t\t<layer id=\"2\"", "-->\n\t\t<layer id=\"2\"", 1),
                 id="self-closing-const-layer"),
    # ------------------------------------------------------------------ ports and dims
    pytest.param(sub("<dim>6</dim>", "<dim>-1</dim>"), id="dim-minus-1"),
    pytest.param(sub("<dim>6</dim>", "<dim>-0</dim>"), id="dim-minus-0"),
    pytest.param(sub("<dim>6</dim>", "<dim>006</dim>"), id="dim-leading-zeros"),
    pytest.param(sub("<dim>6</dim>", "<dim>-2</dim>"), id="dim-minus-2"),
    pytest.param(sub("<dim>6</dim>", "<dim> 6</dim>"), id="dim-with-space"),
    pytest.param(sub("<dim>6</dim>", "<dim>+6</dim>"), id="dim-plus-sign"),
    pytest.param(sub("<dim>6</dim>", "<dim>\u0666</dim>"), id="dim-arabic-digit"),
    pytest.param(sub("<dim>6</dim>", "<dim>1..6</dim>"), id="dim-interval"),
    pytest.param(sub("<dim>6</dim>", "<dim>999999999999999999</dim>"), id="dim-18-digits"),
    pytest.param(sub("<dim>6</dim>", "<dim>9223372036854775808</dim>"), id="dim-above-int64"),
    pytest.param(sub("<dim>6</dim>", "<dim>6</dim><dim>"), id="dim-unclosed"),
    pytest.param(sub("<dim>6</dim>", "<dim />"), id="dim-self-closing"),
    pytest.param(sub('"FP32" names="output0"', '"fp32" names="output0"'), id="precision-lowercase"),
    pytest.param(sub('"FP32" names="output0"', '"f32" names="output0"'), id="precision-element-type"),
    pytest.param(sub('"FP32" names="output0"', '"XYZ" names="output0"'), id="output-bad-precision"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" precision="XYZ" />'), id="input-bad-precision"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" />'), id="input-no-precision"),
    pytest.param(sub('<port id="2" precision="FP32" names="output0"', '<port id="2" names="output0"'),
                 id="output-no-precision"),
    pytest.param(sub('precision="FP32" names="output0"', 'precision="ABCDEFGHIJKLMNOPQ" names="output0"'),
                 id="precision-17-chars"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" precision="I64"></port>'), id="port-start-end"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" precision="I64"><rt_info /></port>'), id="port-empty-rt-info"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" precision="I64"><rt_info></rt_info></port>'),
                 id="port-rt-info-start-end"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + '<rt_info><a x="1" /></rt_info></port>'), id="port-rt-info"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + "<foo /></port>"), id="unknown-element-in-port"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + "text</port>"), id="text-in-port"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + "<rt_info><a /></rt_info><foo /></port>"), id="port-rt-info-then-element"),
    pytest.param(sub(OUT0_END, '<port id="2" precision="FP32" names="output0"><rt_info><a /></rt_info>'
                     "<dim>1</dim><dim>1</dim><dim>6</dim><dim>1</dim></port>"), id="port-rt-info-before-dims"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + '<rt_info><a x="1" /></rt_info><rt_info><b /></rt_info></port>'),
                 id="port-rt-info-twice"),
    pytest.param(sub(OUT0_END, '<port id="2" precision="FP32" names="output0"><rt_info><a x="1" /></rt_info>'
                     "<dim>1</dim><dim>1</dim><dim>6</dim><dim>1</dim><rt_info></rt_info></port>"),
                 id="port-rt-info-dims-rt-info"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + "<rt_info><a /></rt_info><foo /><rt_info><b /></rt_info></port>"),
                 id="port-rt-info-element-rt-info"),
    pytest.param(sub(OUT0_END, OUT0_DIMS + "<rt_info><x /></rt_info></a></a></a></a><a><a><a><a>"
                     "<rt_info></rt_info></port>"),
                 id="port-rt-info-stray-end-tags"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" precision="I64"><rt_info><x /></rt_info></a></a></a></a>'
                     "<a><a><a><a><rt_info></rt_info></port>"),
                 id="input-port-rt-info-stray-end-tags"),
    pytest.param(sub(SPLIT_IN1, '<port id="1" precision="I64"><rt_info><x /></rt_info></port></input><output>'
                     '<port id="9" precision="I64"><rt_info></rt_info></port>'),
                 id="port-rt-info-crossing-ports"),
    # ------------------------------------------------------------------ IR v10, versions
    pytest.param(sub('version="11"', 'version="10"'), id="v10-with-output-names"),
    pytest.param(chain(sub('version="11"', 'version="10"'),
                       lambda t: t.replace(' output_names="output0"', "").replace(' output_names="output1"', "")),
                 id="v10-plain"),
    pytest.param(chain(sub('version="11"', 'version="10"'),
                       lambda t: t.replace(' output_names="output0"', "").replace(' output_names="output1"', ""),
                       sub(SPLIT_DATA, SPLIT_DATA + "<rt_info />")), id="v10-layer-rt-info"),
    pytest.param(chain(sub('version="11"', 'version="10"'),
                       lambda t: t.replace(' output_names="output0"', "").replace(' output_names="output1"', ""),
                       sub(SPLIT_IN1, '<port id="1" precision="I64"><rt_info /></port>')), id="v10-port-rt-info"),
    pytest.param(chain(sub('version="11"', 'version="10"'),
                       lambda t: t.replace(' output_names="output0"', "").replace(' output_names="output1"', ""),
                       sub(NET_RT, "\t<rt_info><a /></rt_info>\n</net>")), id="v10-net-rt-info"),
    pytest.param(sub('version="11"', 'version="12"'), id="version-12"),
    pytest.param(sub('version="11"', 'version=" 11"'), id="version-with-space"),
    pytest.param(sub('version="11"', 'version="011"'), id="version-leading-zero"),
    pytest.param(sub('version="11"', ""), id="no-version"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('version="opset1"', 'version=""')), id="empty-layer-version"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('type="Parameter"', 'type="Foo"')), id="unknown-type"),
    pytest.param(sub(PARAM_TAG, PARAM_TAG.replace('type="Parameter"', 'type="P&amp;x"')), id="escaped-type"),
    # ------------------------------------------------------------------ Const placement
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('offset="0"', 'offset=" 0"')), id="const-offset-space"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('offset="0"', 'offset="00"')), id="const-offset-leading-zero"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('offset="0"', 'offset="-0"')), id="const-offset-minus-zero"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('offset="0"', 'offset="1"')), id="const-offset-beyond-bin"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('size="8"', 'size="9"')), id="const-size-larger"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('size="8"', 'size="7"')), id="const-size-smaller"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace(' size="8"', "")), id="const-no-size"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('size="8"', 'size="8" size="8"')), id="const-repeated-size"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('size="8"', 'size="8" extra="e"')), id="const-extra-attribute"),
    pytest.param(sub(CONST_DATA, CONST_DATA.replace('shape=""', 'shape="1"')), id="const-shape-1"),
    # ------------------------------------------------------------------ lines
    pytest.param(sub(LAYER_END, "</layer>" + "\n" * 70_000, 2), id="layers-past-line-65535"),
    pytest.param(chain(sub(LAYER_END, "</layer>" + "\n" * 70_000, 2),
                       sub(SPLIT_DATA, SPLIT_DATA + "<rt_info><layer /><![CDATA[<layer ]]><!-- <layer --></rt_info>")),
                 id="layers-past-line-65535-with-layer-elements-in-rt-info"),
    pytest.param(chain(sub(LAYER_END, "</layer>" + "\n" * 70_000, 2), sub("<dim>6</dim>", "<dim>x</dim>", 2)),
                 id="error-past-line-65535"),
]


@pytest.mark.parametrize("edit", CASES)
def test_adversarial_inputs_read_the_same_both_ways(tmp_path, edit, deep_recursion):
    fast, reference, _ = read_both(write_case(tmp_path, edit(BASE)))
    assert fast == reference


def one_parameter(name: str = "p", names: str = "t", extra: str = "") -> str:
    """A model of one Parameter layer: its start tags end a couple of hundred bytes before the end of the file."""
    return (
        '<?xml version="1.0"?>\n<net name="m" version="11">\n\t<layers>\n'
        f'\t\t<layer id="0" name="{name}" type="Parameter" version="opset1">\n'
        f'\t\t\t<data shape="1" element_type="f32"{extra} />\n\t\t\t<output>\n'
        f'\t\t\t\t<port id="0" precision="FP32" names="{names}">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t</port>\n'
        "\t\t\t</output>\n\t\t</layer>\n\t</layers>\n\t<edges>\n\t</edges>\n</net>\n"
    )


# Inputs around libxml2's limits (huge_tree off): ~10 MB files, so kept apart. libxml2 2.14 refuses a
# start tag when its parser position runs more than 10,000,000 bytes past its buffer start while it
# needs more input, which depends on where the end of the file is (hence the one-layer files).
EURO = "\u20ac"  # three bytes in UTF-8
BIG = 3_400_000  # characters: under 10,000,000 characters, but 10.2 MB
LARGE_CASES = [
    pytest.param(sub(NAME, 'name="' + EURO * BIG + '"'), id="layer-name-10MB-in-3-byte-characters"),
    pytest.param(sub(NET_NAME, 'name="' + EURO * BIG + '"'), id="net-name-10MB-in-3-byte-characters"),
    pytest.param(sub('names="output0"', 'names="' + EURO * BIG + '"'), id="tensor-names-10MB-in-3-byte-characters"),
    pytest.param(sub('output_names="output0"', 'output_names="' + EURO * BIG + '"'),
                 id="output-names-10MB-in-3-byte-characters"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" x="' + EURO * BIG + '" />'),
                 id="data-value-10MB-in-3-byte-characters"),
    pytest.param(sub(SPLIT_DATA, '<data num_splits="2" x="' + "a" * 6_000_000 + '" y="' + "b" * 6_000_000 + '" />'),
                 id="data-two-6MB-values"),
    pytest.param(sub(NET_RT, '\t<rt_info><x v="' + "a" * 9_999_950 + '" /></rt_info>\n</net>'),
                 id="net-rt-info-value-9999950-near-end-of-file"),
    pytest.param(sub(LAYER_END, "</layer>" + " " * 10_000_001 + "\n"), id="whitespace-text-node-over-10MB"),
    pytest.param(sub("<dim>1</dim>\n", "<dim>1</dim>" + " " * 10_500_000 + "\n"),
                 id="whitespace-between-dims-over-10MB"),
    pytest.param(sub(DECL, '<?xml version="1.0"?>' + " " * 11_000_000), id="whitespace-in-prolog-11MB"),
    pytest.param(lambda t: t + " " * 11_000_000, id="whitespace-in-epilog-11MB"),
    pytest.param(sub(LAYER_END, "</layer>" + " " * 9_999_000 + "\n"), id="whitespace-text-node-under-10MB"),
    pytest.param(sub(NAME, 'name="' + EURO * 3_300_000 + '"'), id="layer-name-9.9MB-in-3-byte-characters"),
    pytest.param(sub(NAME, 'name="' + "a" * 10_000_001 + '"'), id="layer-name-over-10M-ascii"),
    pytest.param(sub(NAME, 'name="' + "a" * 9_999_930 + '"'), id="layer-name-just-under-10M-ascii"),
    pytest.param(sub(NET_NAME, 'name="' + "a" * 9_999_990 + '"'), id="net-name-just-under-10M-ascii"),
    pytest.param(sub('names="output0"', 'names="' + "a" * 9_999_990 + '"'), id="tensor-names-just-under-10M-ascii"),
    pytest.param(sub(NAME, 'name="' + "&amp;" * 2_100_000 + '"'), id="layer-name-escapes-over-10MB"),
    pytest.param(lambda _: one_parameter(name="a" * 9_999_883), id="near-end-layer-name-9999883-ascii"),
    pytest.param(lambda _: one_parameter(name="a" * 9_999_884), id="near-end-layer-name-9999884-ascii"),
    pytest.param(lambda _: one_parameter(extra=' x="' + "a" * 9_999_880 + '"'), id="near-end-data-value-9999880-ascii"),
    pytest.param(lambda _: one_parameter(extra=' x="' + "a" * 9_999_881 + '"'), id="near-end-data-value-9999881-ascii"),
    pytest.param(lambda _: one_parameter(names="a" * 9_999_882), id="near-end-tensor-names-9999882-ascii"),
    pytest.param(lambda _: one_parameter(names="a" * 9_999_883), id="near-end-tensor-names-9999883-ascii"),
]


@pytest.mark.parametrize("edit", LARGE_CASES)
def test_inputs_at_libxml2_limits_read_the_same_both_ways(tmp_path, edit):
    fast, reference, _ = read_both(write_case(tmp_path, edit(BASE)))
    assert fast == reference
