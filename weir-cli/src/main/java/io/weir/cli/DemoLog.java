package io.weir.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Sends the engine's log to a file while the demo runs, so that its story is not broken up by the
 * warnings it causes on purpose (the injected failure's stack trace, operators without a uid, a
 * checkpoint directory on the local disk); closing it puts the console back. Does nothing when the
 * logging behind SLF4J is not Logback.
 */
final class DemoLog implements AutoCloseable {

  private final Logger root;
  private final FileAppender<ILoggingEvent> file;
  private final List<Appender<ILoggingEvent>> console = new ArrayList<>();

  private DemoLog(Logger root, FileAppender<ILoggingEvent> file) {
    this.root = root;
    this.file = file;
  }

  /** Moves the root logger's output to {@code path}; null if logging is not Logback. */
  static DemoLog to(Path path) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return null;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> file = new FileAppender<>();
    file.setContext(context);
    file.setName("weir-demo-log");
    file.setFile(path.toString());
    file.setEncoder(encoder);
    file.start();
    DemoLog log = new DemoLog(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME), file);
    for (Iterator<Appender<ILoggingEvent>> it = log.root.iteratorForAppenders(); it.hasNext(); ) {
      log.console.add(it.next());
    }
    log.console.forEach(log.root::detachAppender);
    log.root.addAppender(file);
    return log;
  }

  @Override
  public void close() {
    console.forEach(root::addAppender);
    root.detachAppender(file);
    file.stop();
  }
}
