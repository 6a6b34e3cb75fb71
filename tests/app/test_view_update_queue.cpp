// ViewUpdateQueue: posted updates run in order, one per event-loop turn (the window repaints
// and takes input between them), and drain() runs what is left at once.
#include <QTest>

#include <string>

#include "gui/view_update_queue.h"

using stepscope::gui::ViewUpdateQueue;

class ViewUpdateQueueTest : public QObject {
  Q_OBJECT

 private slots:
  void runsInOrderOnePerEventLoopTurn() {
    ViewUpdateQueue queue;
    std::string ran;
    for (char c : std::string("abc")) queue.post([&ran, c] { ran += c; });
    QCOMPARE(ran, std::string());  // nothing runs inside post
    QCoreApplication::processEvents();
    QCOMPARE(ran.size(), size_t{1});  // one turn, one update
    QTRY_COMPARE(ran, std::string("abc"));
    QVERIFY(queue.empty());
  }

  void workPostedByWorkRunsAfterWhatWasAlreadyQueued() {
    ViewUpdateQueue queue;
    std::string ran;
    queue.post([&] {
      ran += '1';
      queue.post([&] { ran += '3'; });
    });
    queue.post([&] { ran += '2'; });
    QTRY_COMPARE(ran, std::string("123"));
  }

  void drainRunsEverythingNowAndLeavesNothingForLater() {
    ViewUpdateQueue queue;
    std::string ran;
    queue.post([&] { ran += 'a'; });
    queue.post([&] {
      ran += 'b';
      queue.post([&] { ran += 'c'; });
    });
    queue.drain();
    QCOMPARE(ran, std::string("abc"));
    QVERIFY(queue.empty());
    QTest::qWait(20);
    QCOMPARE(ran, std::string("abc"));  // nothing ran twice
  }
};

QTEST_MAIN(ViewUpdateQueueTest)
#include "test_view_update_queue.moc"
