package io.weir.connector.files;

import io.weir.api.source.SourceReader;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * The lines of text files, as Flink's {@code TextLineInputFormat}: for {@code
 * FileSource.forRecordStreamFormat(new TextLineInputFormat(), path).build()}. Lines end with {@code
 * '\n'} or {@code "\r\n"}, which are not part of the line; the text is UTF-8.
 */
public final class TextLineInputFormat extends StreamFormat<String> {
  private static final long serialVersionUID = 1L;

  /** The lines of UTF-8 text. */
  public TextLineInputFormat() {}

  /**
   * As Flink's constructor with a charset name; Weir reads UTF-8 (and so US-ASCII) only.
   *
   * @throws IllegalArgumentException for any other charset
   */
  public TextLineInputFormat(String charsetName) {
    Charset charset = Charset.forName(charsetName);
    if (!charset.equals(StandardCharsets.UTF_8) && !charset.equals(StandardCharsets.US_ASCII)) {
      throw new IllegalArgumentException(
          "TextLineInputFormat reads UTF-8 text only, not "
              + charset.name()
              + "; convert the files to UTF-8 or use new TextLineInputFormat()");
    }
  }

  @Override
  SourceReader<String, FileSplit> createReader() {
    return new LineReader();
  }

  @Override
  public TypeInformation<String> getProducedType() {
    return Types.STRING;
  }

  @Override
  public String toString() {
    return "TextLineInputFormat";
  }
}
