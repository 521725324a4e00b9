package grid.gateway.app.load;

import grid.gateway.routing.load.EngineSample;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one scrape round's pods answered ({@link QueueScraper}).
 *
 * @param samples the sample of each pod that answered 2xx, by its URL
 * @param measured how many of them carried a count of the queue metric
 * @param failures a line for each pod that gave no depth
 * @param silent the pods that failed without being down (reached, or not tried): their load is unknown, not gone
 */
record PodAnswers(Map<String, EngineSample> samples, int measured, List<String> failures, Set<String> silent) {}
