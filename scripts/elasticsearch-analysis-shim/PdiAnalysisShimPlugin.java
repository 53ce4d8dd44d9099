// A stand-in for the three token filter types our index settings need from Elasticsearch's
// analysis-common module, for the integ-test distribution only.
//
// Why: the Maven Central integ-test-zip of Elasticsearch 8.19 carries just transport-netty4, apm and
// x-pack-core/security, not analysis-common, so `lowercase` (with `language`), `stemmer` and
// `asciifolding` are unknown there. The full distributions (tarball, Docker image) do have them, and
// index-mappings/settings.ts uses the standard type names and parameters, so the same settings work on
// both. scripts/elasticsearch.sh compiles this file against the jars of the very distribution it runs
// (so `elasticsearch.version` always matches) and installs it only when analysis-common is absent.
//
// Each type wraps the Lucene filter analysis-common uses for the same parameters (lucene-analysis-common
// ships in the distribution's lib/). `lowercase` and `asciifolding` are normalizing, as in
// analysis-common, so a keyword normalizer may use them. Unsupported parameter values fail index
// creation, as Elasticsearch does, instead of silently analysing differently.
package pdi.analysis;

import java.util.Map;

import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.el.GreekLowerCaseFilter;
import org.apache.lucene.analysis.el.GreekStemFilter;
import org.apache.lucene.analysis.en.EnglishMinimalStemFilter;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.KStemFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.analysis.NormalizingTokenFilterFactory;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

public class PdiAnalysisShimPlugin extends Plugin implements AnalysisPlugin {

    @Override
    public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
        return Map.of(
            "lowercase", (indexSettings, env, name, settings) -> lowercase(name, settings),
            "asciifolding", (indexSettings, env, name, settings) -> asciiFolding(name, settings),
            "stemmer", (indexSettings, env, name, settings) -> stemmer(name, settings)
        );
    }

    private interface Filter {
        TokenStream apply(TokenStream in);
    }

    private static NormalizingTokenFilterFactory normalizing(String name, Filter filter) {
        return new NormalizingTokenFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TokenStream create(TokenStream in) {
                return filter.apply(in);
            }
        };
    }

    private static TokenFilterFactory lowercase(String name, Settings settings) {
        String language = settings.get("language");
        if (language == null) return normalizing(name, LowerCaseFilter::new);
        if (language.equalsIgnoreCase("greek")) return normalizing(name, GreekLowerCaseFilter::new);
        throw new IllegalArgumentException("language [" + language + "] not supported for lowercase in the test shim");
    }

    private static TokenFilterFactory asciiFolding(String name, Settings settings) {
        boolean preserve = settings.getAsBoolean("preserve_original", false);
        return new NormalizingTokenFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TokenStream create(TokenStream in) {
                return new ASCIIFoldingFilter(in, preserve);
            }

            @Override
            public TokenStream normalize(TokenStream in) {
                return new ASCIIFoldingFilter(in, false);
            }
        };
    }

    private static TokenFilterFactory stemmer(String name, Settings settings) {
        String language = settings.get("language", settings.get("name", "porter"));
        Filter filter = switch (language) {
            case "greek" -> GreekStemFilter::new;
            case "english", "porter" -> PorterStemFilter::new;
            case "light_english" -> KStemFilter::new;
            case "minimal_english" -> EnglishMinimalStemFilter::new;
            case "possessive_english" -> EnglishPossessiveFilter::new;
            default -> throw new IllegalArgumentException("stemmer language [" + language + "] not supported in the test shim");
        };
        return new TokenFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TokenStream create(TokenStream in) {
                return filter.apply(in);
            }
        };
    }
}
