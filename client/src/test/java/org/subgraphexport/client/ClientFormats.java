package org.subgraphexport.client;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.AnnotationBasedArgumentsProvider;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.ParameterDeclarations;
import org.subgraphexport.wire.Format;

/**
 * The arguments of a {@code @ParameterizedTest}: every {@link Format} the Java client decodes
 * ({@link Format#clientDecodes}: all but {@code arrow}, which pyarrow reads in {@code python/tests}), and with
 * {@code rows = true} only those that also carry rows streams ({@link Format#carriesRows}). The client's test jar
 * carries it to every module whose tests decode with the client.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ArgumentsSource(ClientFormats.Provider.class)
public @interface ClientFormats {
    /** Only the formats that carry rows streams (Cypher {@code mode=rows}). */
    boolean rows() default false;

    /** The formats, in {@link Format}'s order. */
    final class Provider extends AnnotationBasedArgumentsProvider<ClientFormats> {
        @Override
        protected Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters,
                ExtensionContext context, ClientFormats annotation) {
            return Arrays.stream(Format.values()).filter(Format::clientDecodes)
                    .filter(f -> !annotation.rows() || f.carriesRows()).map(Arguments::of);
        }
    }
}
