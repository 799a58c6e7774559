package dev.bosun.common.testing;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Every line this JVM logs while it is open, with Bosun's own loggers turned up to DEBUG: what an
 * operator would print at the most talkative level the chart offers short of TRACE, for tests that
 * a secret never reaches a log.
 */
public final class LogCapture implements AutoCloseable {

  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
  private final AbstractAppender appender;
  private final LoggerConfig bosun;
  private final Level bosunLevel;

  private LogCapture() {
    appender =
        new AbstractAppender(
            "capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            StringBuilder line =
                new StringBuilder(event.getLoggerName())
                    .append(' ')
                    .append(event.getMessage().getFormattedMessage());
            for (Throwable t = event.getThrown(); t != null; t = t.getCause()) {
              line.append(" | ").append(t);
            }
            lines.add(line.toString());
          }
        };
    appender.start();
    var config = context.getConfiguration();
    config.getRootLogger().addAppender(appender, Level.ALL, null);
    bosun = config.getLoggerConfig("dev.bosun");
    bosunLevel = bosun.getLevel();
    bosun.setLevel(Level.DEBUG);
    context.updateLoggers();
  }

  /** Starts capturing. */
  public static LogCapture start() {
    return new LogCapture();
  }

  /** The lines logged so far: logger, message, and each exception in the chain. */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    context.getConfiguration().getRootLogger().removeAppender(appender.getName());
    bosun.setLevel(bosunLevel);
    context.updateLoggers();
    appender.stop();
  }
}
